import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `/console/apps/{app_id}/offers`: offers, one-time code batches, custom codes, the quarter's quota and the redemption
/// report. Any operator reads; owners write, through `AdminService` (validated and audited there, as from the admin API
/// and the CLI). A batch is generated in the background with its progress on its own page, and its codes are handed
/// over once, as a CSV, to the operator who asked.
struct ConsoleOffersController {
    let service: ConsoleService
    let pages: ConsolePages
    let admin: AdminService
    let jobs: CodeBatchJobs
    let publicURL: URL

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/console/apps/{app_id}/offers", use: offers)
        router.post("/console/apps/{app_id}/offers", use: createOffer)
        router.post("/console/apps/{app_id}/offers/{offer_id}/active", use: switchOffer)
        router.get("/console/apps/{app_id}/offers/report.csv", use: report)
        router.post("/console/apps/{app_id}/batches", use: startBatch)
        router.get("/console/apps/{app_id}/batches/jobs/{job_id}", use: batchJob)
        router.post("/console/apps/{app_id}/batches/jobs/{job_id}/download", use: download)
        router.post("/console/apps/{app_id}/batches/{batch_id}/active", use: switchBatch)
        router.post("/console/apps/{app_id}/custom-codes", use: createCustomCode)
        router.post("/console/apps/{app_id}/custom-codes/{code_id}/active", use: switchCustomCode)
    }

    @Sendable func offers(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await page(context: context, error: nil, status: .ok, request: request)
    }

    // MARK: Offers

    @Sendable func createOffer(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await write(request, context, "create offers") { form, appID, session in
            let admin = admin.acting(as: session.actor)
            let mode = form["payment_mode"] ?? ""
            let isFree = mode == OfferPaymentMode.freeTrial.rawValue
            _ = try await admin.createOffer(
                appID: appID,
                OfferInput(
                    productID: form["product_id"] ?? "", referenceName: (form["reference_name"] ?? "").trimmingCharacters(in: .whitespaces),
                    paymentMode: mode, duration: Self.nonEmpty(form["duration"]), periods: try Self.number(form["periods"], field: "periods"),
                    price: isFree ? nil : try ConsoleCatalogController.price(form),
                    eligibility: ["new", "existing", "expired"].filter { form["eligible_\($0)"] == "yes" },
                    startsAt: try Self.day(form["starts_on"], field: "starts_at"), endsAt: try Self.day(form["ends_on"], field: "ends_at"),
                    active: form["inactive"] != "yes"))
            return .offerSaved
        }
    }

    @Sendable func switchOffer(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await switchActive(request, context, "switch offers") { appID, active, admin in
            _ = try await admin.setOfferActive(appID: appID, id: try context.parameters.decoded("offer_id"), active: active)
        }
    }

    /// Every redemption as CSV (for one offer with `?offer=`); any operator, as the customer pages.
    @Sendable func report(_ request: Request, context: ConsoleContext) async throws -> Response {
        let appID = try context.appID
        let offerID = request.uri.queryParameters["offer"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        let csv = try await admin.offerRedemptionReport(appID: appID, offerID: offerID)
        return Self.csv(csv, filename: "redemptions-\(offerID ?? appID).csv")
    }

    // MARK: One-time code batches

    /// Starts generating a batch and sends the operator to its progress page.
    @Sendable func startBatch(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.ownerWrite("generate codes", describe: Self.describe) { _, error, status, _, _ in
            try await page(context: context, error: error, status: status, request: request)
        } leadingTo: { form, appID, session in
            let offerID = form["offer_id"] ?? ""
            let count = try Self.number(form["count"], field: "count") ?? 0
            guard let expiresAt = try Self.day(form["expires_on"], field: "expires_at") else {
                throw ValidationError(field: "expires_at", reason: "is required")
            }
            let now = service.clock.now()
            try OfferCodeBatch.validate(count: count, expiresAt: expiresAt, now: now)
            _ = try await admin.store.offer(appID: appID, id: offerID)
            // Generated in the background, and recorded under the operator who started it.
            let admin = admin.acting(as: session.actor)
            let jobID: String
            do {
                jobID = try jobs.start(appID: appID, operatorID: session.operator.id, offerID: offerID, count: count) { progress in
                    try await admin.generateCodes(appID: appID, offerID: offerID, count: count, expiresAt: expiresAt, progress: progress)
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
        var values: [String: Any] = [
            "count": Self.grouped(job.count), "percent": Int((job.fraction * 100).rounded()), "jobID": job.id,
            "offerID": job.offerID,
        ]
        switch job.state {
        case .running(let phase, let done):
            values["running"] = true
            values["phase"] = phase == .storing ? "Storing \(Self.grouped(done)) of \(Self.grouped(job.count))" : phase.rawValue
        case .ready: values["ready"] = true
        case .downloading: values["downloading"] = true
        case .downloaded(let at): values["downloaded"] = ConsolePresenter.date(at)
        case .dropped: values["dropped"] = true
        case .failed(let reason): values["failed"] = reason
        }
        if let batchID = job.batchID { values["batchID"] = batchID }
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
        guard let generated = jobs.takeForDownload(jobID, appID: appID, operatorID: session.operator.id) else {
            throw APIError.conflict("These codes were already downloaded, or are no longer kept. Deactivate the batch and generate another.")
        }
        let jobs = jobs
        let publicURL = publicURL
        let body = ResponseBody { writer in
            do {
                let step = 20_000
                for start in stride(from: 0, to: generated.codes.count, by: step) {
                    let chunk = generated.csv(publicURL: publicURL, header: start == 0, range: start..<min(start + step, generated.codes.count))
                    try await writer.write(ByteBuffer(string: chunk))
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
                .contentDisposition: "attachment; filename=\"codes-\(generated.batch.id).csv\"",
            ], body: body)
    }

    @Sendable func switchBatch(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await switchActive(request, context, "switch code batches") { appID, active, admin in
            _ = try await admin.setCodeBatchActive(appID: appID, id: try context.parameters.decoded("batch_id"), active: active)
        }
    }

    // MARK: Custom codes

    @Sendable func createCustomCode(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await write(request, context, "create codes") { form, appID, session in
            _ = try await admin.acting(as: session.actor).createCustomCode(
                appID: appID,
                CustomCodeInput(
                    offerID: form["offer_id"] ?? "", code: form["code"] ?? "",
                    maxRedemptions: try Self.number(form["max_redemptions"], field: "max_redemptions") ?? 0,
                    expiresAt: try Self.day(form["expires_on"], field: "expires_at"), active: true))
            return .customCodeSaved
        }
    }

    @Sendable func switchCustomCode(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await switchActive(request, context, "switch codes") { appID, active, admin in
            _ = try await admin.setCustomCodeActive(appID: appID, id: try context.parameters.decoded("code_id"), active: active)
        }
    }

    /// An owner's on/off switch: the form's `active=yes` turns it on, its absence off.
    func switchActive(
        _ request: Request, _ context: ConsoleContext, _ what: String, _ body: (String, Bool, AdminService) async throws -> Void
    ) async throws -> Response {
        try await write(request, context, what) { form, appID, session in
            let active = form["active"] == "yes"
            try await body(appID, active, admin.acting(as: session.actor))
            return active ? .switchedOn : .switchedOff
        }
    }

    // MARK: Forms and the page

    func write(
        _ request: Request, _ context: ConsoleContext, _ what: String,
        _ body: ([String: String], String, ConsoleSession) async throws -> ConsoleNotice
    ) async throws -> Response {
        try await context.ownerWrite(what, page: "offers", describe: Self.describe) { _, error, status, _, form in
            try await page(context: context, error: error, status: status, request: request, typed: form)
        } body: { form, appID, session in
            try await body(form, appID, session)
        }
    }

    /// The new-offer form: its defaults, or what was typed when it was refused (and then it opens).
    static func offerForm(_ typed: [String: String]?) -> [String: Any] {
        guard let typed else { return ["periods": "1", "price_currency": "USD", "eligible_new": true] }
        var values: [String: Any] = ["open": true]
        for name in ["reference_name", "periods", "price_amount", "price_currency", "starts_on", "ends_on"] { values[name] = typed[name] ?? "" }
        for name in ["eligible_new", "eligible_existing", "eligible_expired", "inactive"] { values[name] = typed[name] == "yes" }
        return values
    }

    static func codeForm(_ typed: [String: String]?) -> [String: Any] {
        guard let typed else { return ["max_redemptions": "1000"] }
        return [
            "open": true, "code": typed["code"] ?? "", "max_redemptions": typed["max_redemptions"] ?? "", "expires_on": typed["expires_on"] ?? "",
        ]
    }

    /// Payment modes in words.
    static func words(_ mode: OfferPaymentMode) -> String {
        switch mode {
        case .freeTrial: "Free trial"
        case .payAsYouGo: "Pay as you go (a price per period)"
        case .payUpFront: "Pay up front (one price for the whole offer)"
        }
    }

    /// A refusal naming the field by its label on the page's forms.
    static func describe(_ error: ValidationError) -> String {
        let labels = [
            "product_id": "Product", "offer_id": "Offer", "reference_name": "Reference name", "payment_mode": "Payment mode",
            "duration": "Duration of one period", "periods": "Periods", "price": "Price", "eligibility": "Who may redeem",
            "starts_at": "Starts", "ends_at": "Ends", "count": "How many", "expires_at": "Expires on", "code": "Code",
            "max_redemptions": "Redemptions allowed",
        ]
        guard let label = labels[error.field] else { return ConsolePages.describe(error) }
        return "\(label): \(error.reason)."
    }

    static func nonEmpty(_ text: String?) -> String? {
        text.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A whole number from a field; nil when it is empty.
    static func number(_ text: String?, field: String) throws(ValidationError) -> Int? {
        guard let text = nonEmpty(text)?.replacingOccurrences(of: ",", with: "") else { return nil }
        guard let value = Int(text) else { throw ValidationError(field: field, reason: "must be a whole number") }
        return value
    }

    /// A date field (`YYYY-MM-DD`) as the start of that day, UTC; nil when it is empty.
    static func day(_ text: String?, field: String) throws(ValidationError) -> Date? {
        guard let text = nonEmpty(text) else { return nil }
        guard let date = ISODate.parse(text + "T00:00:00Z") else { throw ValidationError(field: field, reason: "must be a date") }
        return date
    }

    /// "1,000,000".
    static func grouped(_ value: Int) -> String {
        value.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))
    }

    static func csv(_ text: String, filename: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8", .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"\(filename)\"",
            ], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// `typed`: a refused form as it was sent, so it opens again with what was typed (the offer form or the code form,
    /// told apart by the request's path).
    func page(
        context: ConsoleContext, error: String?, status: HTTPResponse.Status, request: Request, typed: [String: String]? = nil
    ) async throws -> Response {
        let appID = try context.appID
        let session = context.session
        let now = service.clock.now()
        let offerForm = request.uri.path.hasSuffix("/offers") ? typed : nil
        let codeForm = request.uri.path.hasSuffix("/custom-codes") ? typed : nil
        let products = try await admin.store.products(appID: appID)
        let offers = try await admin.store.offers(appID: appID, productID: nil)
        let names = Dictionary(offers.map { ($0.id, $0.referenceName) }, uniquingKeysWith: { first, _ in first })
        let usage = try await admin.store.offerCodeUsage(appID: appID, now: now)
        let redemptions = Dictionary(usage.offers.map { ($0.offerID, $0.redemptions) }, uniquingKeysWith: +)
        let productsByID = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let offerRows = offers.map { offer -> [String: Any] in
            var values = OffersPresenter.offer(offer, product: productsByID[offer.productID], now: now)
            values["redemptions"] = Self.grouped(redemptions[offer.id] ?? 0)
            return values
        }
        let limits = products.filter { $0.type == .subscription }.map { product -> [String: Any] in
            let active = offers.filter { $0.productID == product.id && $0.isActive }.count
            return ["product": product.id, "active": active, "max": Offer.maxActivePerSubscription, "full": active >= Offer.maxActivePerSubscription]
        }.filter { ($0["active"] as? Int ?? 0) > 0 }
        let batches = try await admin.store.codeBatches(appID: appID, offerID: nil).map {
            OffersPresenter.batch($0, offerName: names[$0.offerID] ?? $0.offerID, now: now)
        }
        let customCodes = try await admin.store.customCodes(appID: appID, offerID: nil).map {
            OffersPresenter.customCode($0, offerName: names[$0.offerID] ?? $0.offerID, now: now)
        }
        let pendingJobs = jobs.pending(appID: appID, operatorID: session.operator.id).map { job -> [String: Any] in
            let ready = if case .ready = job.state { true } else { false }
            return ["id": job.id, "count": Self.grouped(job.count), "ready": ready, "percent": Int((job.fraction * 100).rounded())]
        }
        let defaultExpiry = ISO8601Period(months: 3).advance(now)
        var values: [String: Any] = [
            "offers": offerRows, "limits": limits, "batches": batches, "customCodes": customCodes, "jobs": pendingJobs,
            "products": products.map { product -> [String: Any] in
                let label = product.displayName.map { "\($0) (\(product.id))" } ?? product.id
                return ["id": product.id, "label": label, "selected": offerForm?["product_id"] == product.id]
            },
            "activeOffers": offers.filter(\.isActive).map {
                ["id": $0.id, "name": $0.referenceName, "selectedForCode": codeForm?["offer_id"] == $0.id]
            },
            "durations": OfferDuration.allCases.map {
                ["value": $0.rawValue, "label": OfferSummary.words($0.period), "selected": offerForm?["duration"] == $0.rawValue]
            },
            "modes": OfferPaymentMode.allCases.map {
                ["value": $0.rawValue, "label": Self.words($0), "selected": offerForm?["payment_mode"] == $0.rawValue]
            },
            "offerForm": Self.offerForm(offerForm), "codeForm": Self.codeForm(codeForm),
            "quarter": usage.quarter, "used": Self.grouped(usage.used), "quota": Self.grouped(usage.quota),
            "usedPercent": usage.quota > 0 ? min(100, usage.used * 100 / usage.quota) : 0,
            "maxCount": OfferCodeBatch.maxCount, "maxCap": CustomOfferCode.maxCap,
            "defaultExpiry": String(ISODate.format(defaultExpiry).prefix(10)),
            "today": String(ISODate.format(now).prefix(10)),
            "latestExpiry": String(ISODate.format(OfferCodeBatch.maxLifetime.advance(now)).prefix(10)),
        ]
        if let error { values["error"] = error }
        if let notice = ConsolePages.notice(request) { values["notice"] = notice }
        return pages.page("console-offers", status: status, context: context, values)
    }
}

/// Offers, batches and custom codes as the console's offers page shows them.
enum OffersPresenter {
    static func offer(_ offer: Offer, product: Product?, now: Date) -> [String: Any] {
        var values: [String: Any] = [
            "id": offer.id, "name": offer.referenceName, "product": offer.productID, "active": offer.isActive,
            "terms": product.map { OfferSummary.text(offer, product: $0) } ?? "",
            "who": product.map { OfferSummary.eligibility(offer, product: $0) } ?? "",
        ]
        var window: [String] = []
        if let starts = offer.startsAt { window.append((starts > now ? "starts " : "started ") + ConsolePresenter.date(starts)) }
        if let ends = offer.endsAt { window.append((ends > now ? "ends " : "ended ") + ConsolePresenter.date(ends)) }
        if !window.isEmpty { values["window"] = window.joined(separator: ", ") }
        return values
    }

    static func batch(_ batch: OfferCodeBatch, offerName: String, now: Date) -> [String: Any] {
        [
            "id": batch.id, "offer": offerName, "count": ConsoleOffersController.grouped(batch.count),
            "redeemed": ConsoleOffersController.grouped(batch.redeemed ?? 0), "created": ConsolePresenter.date(batch.createdAt),
            "expires": ConsolePresenter.date(batch.expiresAt), "expired": batch.expiresAt <= now, "active": batch.isActive,
        ]
    }

    static func customCode(_ code: CustomOfferCode, offerName: String, now: Date) -> [String: Any] {
        var values: [String: Any] = [
            "id": code.id, "code": code.code, "offer": offerName, "active": code.isActive,
            "used": ConsoleOffersController.grouped(code.redemptionCount), "cap": ConsoleOffersController.grouped(code.maxRedemptions),
            "full": code.redemptionCount >= code.maxRedemptions,
        ]
        if let expires = code.expiresAt {
            values["expires"] = ConsolePresenter.date(expires)
            values["expired"] = expires <= now
        }
        return values
    }
}
