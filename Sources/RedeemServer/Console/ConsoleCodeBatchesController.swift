import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `/console/apps/{app_id}/batches`: one-time code batches, generated in the background with their progress on their own
/// page, and their codes handed over once, as a CSV, to the operator who asked. Owners only.
struct ConsoleCodeBatchesController {
    let service: ConsoleService
    let pages: ConsolePages
    let admin: AdminService
    let jobs: CodeBatchJobs
    let publicURL: URL
    let offersPage: OffersPage

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.post("/console/apps/{app_id}/batches", use: startBatch)
        router.get("/console/apps/{app_id}/batches/jobs/{job_id}", use: batchJob)
        router.post("/console/apps/{app_id}/batches/jobs/{job_id}/download", use: download)
        router.post("/console/apps/{app_id}/batches/{batch_id}/active", use: switchBatch)
    }

    /// Starts generating a batch and sends the operator to its progress page. The same form sent again (a resubmit
    /// after a reload) goes to the batch it started, while this server keeps its job.
    @Sendable func startBatch(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.ownerWrite("generate codes", describe: ConsoleOffersController.describe) { _, error, status, _, _ in
            try await offersPage.render(context: context, error: error, status: status, request: request)
        } leadingTo: { form, appID, session in
            let requestID = try FormID.submitted(form, field: "form_id")
            let offerID = form["offer_id"] ?? ""
            let count = try ConsoleOffersController.number(form["count"], field: "count") ?? 0
            guard let expiresAt = try ConsoleOffersController.day(form["expires_on"], field: "expires_at") else {
                throw ValidationError(field: "expires_at", reason: "is required")
            }
            let now = service.clock.now()
            try OfferCodeBatch.validate(count: count, expiresAt: expiresAt, now: now)
            _ = try await admin.offer(appID: appID, id: offerID)
            // Generated in the background, and recorded under the operator who started it.
            let admin = admin.acting(as: session.actor)
            let jobID: String
            do {
                jobID = try jobs.start(appID: appID, operatorID: session.operator.id, offerID: offerID, count: count, requestID: requestID) {
                    file, progress in
                    try await admin.generateCodes(
                        appID: appID, offerID: offerID, count: count, expiresAt: expiresAt,
                        into: CodeCSVFile(url: file, publicURL: publicURL), progress: progress)
                }
            } catch {
                throw StoreError.conflict("another batch is being generated on this server; wait for it to finish")
            }
            return "/console/apps/\(appID)/batches/jobs/\(jobID)"
        }
    }

    /// A batch's progress (the page reloads itself while it runs), then its one download.
    @Sendable func batchJob(_ request: Request, context: ConsoleContext) async throws -> Response {
        let session = context.session
        let appID = try context.appID
        guard let job = jobs.job(try context.parameters.decoded("job_id"), appID: appID, operatorID: session.operator.id) else {
            throw APIError.notFound(
                "No such batch on this server. A batch's progress and codes are kept by the server that generated it, for an hour.")
        }
        var values = BatchJobPage(
            count: ConsoleOffersController.grouped(job.count), percent: Int((job.fraction * 100).rounded()), jobID: job.id, offerID: job.offerID)
        switch job.state {
        case .running(let phase, let done):
            values.running = true
            values.phase =
                phase == .storing
                ? "Storing \(ConsoleOffersController.grouped(done)) of \(ConsoleOffersController.grouped(job.count))" : phase.rawValue
        case .ready: values.ready = true
        case .downloading: values.downloading = true
        case .downloaded(let at): values.downloaded = ConsolePresenter.date(at)
        case .dropped: values.dropped = true
        case .failed(let reason): values.failed = reason
        }
        values.batchID = job.batchID
        var response = pages.page("console-batch-job", context: context, values)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// The batch's codes as CSV, once: a POST (a prefetch or a crawler never takes them), for the operator who asked.
    @Sendable func download(_ request: Request, context: ConsoleContext) async throws -> Response {
        let session = context.session
        try context.require(.changeSettings, "download codes")
        let appID = try context.appID
        let jobID = try context.parameters.decoded("job_id")
        guard let ready = jobs.takeForDownload(jobID, appID: appID, operatorID: session.operator.id) else {
            throw APIError.conflict("These codes were already downloaded, or are no longer kept. Deactivate the batch and generate another.")
        }
        let jobs = jobs
        let body = ResponseBody { writer in
            do {
                // The CSV file, a piece at a time.
                let handle = try FileHandle(forReadingFrom: ready.file)
                defer { try? handle.close() }
                while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
                    try await writer.write(ByteBuffer(bytes: piece))
                }
                try await writer.finish(nil)
                jobs.finishDownload(jobID, succeeded: true)
            } catch {
                jobs.finishDownload(jobID, succeeded: false)
                throw error
            }
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8", .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"codes-\(ready.batch.id).csv\"",
            ], body: body)
    }

    @Sendable func switchBatch(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.ownerWrite("switch code batches", page: "offers", describe: ConsoleOffersController.describe) { _, error, status, _, _ in
            try await offersPage.render(context: context, error: error, status: status, request: request)
        } body: { form, appID, session in
            let active = form["active"] == "yes"
            _ = try await admin.acting(as: session.actor).setCodeBatchActive(
                appID: appID, id: try context.parameters.decoded("batch_id"), active: active)
            return active ? .switchedOn : .switchedOff
        }
    }

}
