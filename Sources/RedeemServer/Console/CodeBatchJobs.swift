import Foundation
import RedeemCore
import Synchronization

/// One-time code batches the console is generating, and their codes until the operator who asked downloads them once.
/// The codes are held by this instance only, as a CSV file in its temporary directory (readable by its user alone,
/// deleted once downloaded or dropped): they never reach the database, a log or another operator.
final class CodeBatchJobs: Sendable {
    enum State: Sendable {
        case running(phase: Phase, done: Int)
        case ready(ReadyCodes)
        /// A download is being written; the codes come back if it fails.
        case downloading(ReadyCodes)
        case downloaded(Date)
        /// Not downloaded in time: the codes were dropped (the batch stays, and can be deactivated).
        case dropped
        case failed(String)
    }

    enum Phase: String, Sendable {
        case drawing = "Drawing codes"
        case storing = "Storing"
    }

    /// A generated batch and the CSV file of its codes.
    struct ReadyCodes: Sendable {
        let batch: OfferCodeBatch
        let file: URL
    }

    struct Job: Sendable {
        let id: String
        let appID: String
        let operatorID: String
        let offerID: String
        let count: Int
        let startedAt: Date
        var state: State
        var batchID: String?
        var finishedAt: Date?

        /// 0...1: drawing (with hashing and writing) takes the first 40%, storing the rest.
        var fraction: Double {
            switch state {
            case .running(.drawing, let done): 0.4 * Double(done) / Double(max(count, 1))
            case .running(.storing, let done): 0.4 + 0.6 * Double(done) / Double(max(count, 1))
            default: 1
            }
        }
    }

    /// Ready codes are dropped after this long; finished jobs are forgotten after a day.
    static let keepCodesFor: TimeInterval = 3600
    static let forgetAfter: TimeInterval = 86_400

    private let jobs = Mutex<[String: Job]>([:])
    let clock: any RedeemClock

    init(clock: any RedeemClock) { self.clock = clock }

    /// A new file name for a batch's CSV, in the temporary directory.
    static func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("redeem-codes-\(UUID().uuidString).csv")
    }

    /// Starts `work`, which writes the codes to the file it is given, unless another batch is being generated on this
    /// instance (one at a time: it takes the cores). Returns the job's unguessable ID. `requestID`: the form's own ID,
    /// which names the job: sent again, it returns the job it started and starts nothing.
    func start(
        appID: String, operatorID: String, offerID: String, count: Int, requestID: RequestID? = nil,
        work: @escaping @Sendable (_ file: URL, _ progress: @escaping @Sendable (String, Int) -> Void) async throws -> OfferCodeBatch
    ) throws(BatchInProgress) -> String {
        // A hash of the form's 128 random bits is as unguessable as a new ID.
        let id = requestID.map { SecretToken.hash("batch-job:\(appID):\(operatorID):" + $0.value) } ?? SecretToken.generate(byteCount: 16)
        let started = try jobs.withLock { (jobs) throws(BatchInProgress) -> Bool in
            if jobs[id] != nil { return false }
            if jobs.values.contains(where: { if case .running = $0.state { true } else { false } }) { throw BatchInProgress() }
            jobs[id] = Job(
                id: id, appID: appID, operatorID: operatorID, offerID: offerID, count: count, startedAt: clock.now(),
                state: .running(phase: .drawing, done: 0))
            return true
        }
        guard started else { return id }
        Task {
            let file = Self.temporaryFile()
            do {
                let batch = try await work(file) { phase, done in self.progress(id, phase, done) }
                update(id) {
                    $0.state = .ready(ReadyCodes(batch: batch, file: file))
                    $0.batchID = batch.id
                    $0.finishedAt = self.clock.now()
                }
            } catch {
                try? FileManager.default.removeItem(at: file)
                let message = (error as? ValidationError).map { "\($0.field) \($0.reason)" } ?? String(describing: error)
                update(id) {
                    $0.state = .failed(message)
                    $0.finishedAt = self.clock.now()
                }
            }
        }
        return id
    }

    /// The job if it is this operator's, for this app; after dropping codes kept too long.
    func job(_ id: String, appID: String, operatorID: String) -> Job? {
        expire()
        return jobs.withLock { jobs in jobs[id].flatMap { $0.appID == appID && $0.operatorID == operatorID ? $0 : nil } }
    }

    /// The operator's jobs for the app that are running or waiting to be downloaded.
    func pending(appID: String, operatorID: String) -> [Job] {
        expire()
        return jobs.withLock { jobs in
            jobs.values.filter { job in
                guard job.appID == appID && job.operatorID == operatorID else { return false }
                switch job.state {
                case .running, .ready, .downloading: return true
                default: return false
                }
            }.sorted { $0.startedAt < $1.startedAt }
        }
    }

    /// Takes the codes for a download; nil when they are not (or no longer) there. `finishDownload` settles it.
    func takeForDownload(_ id: String, appID: String, operatorID: String) -> ReadyCodes? {
        expire()
        return jobs.withLock { jobs in
            guard var job = jobs[id], job.appID == appID, job.operatorID == operatorID, case .ready(let generated) = job.state else {
                return nil
            }
            job.state = .downloading(generated)
            jobs[id] = job
            return generated
        }
    }

    /// After a download: done for good, or (when writing failed) the codes are back for another try.
    func finishDownload(_ id: String, succeeded: Bool) {
        let now = clock.now()
        update(id) { job in
            guard case .downloading(let ready) = job.state else { return }
            job.state = succeeded ? .downloaded(now) : .ready(ready)
            if succeeded { try? FileManager.default.removeItem(at: ready.file) }
        }
    }

    private func progress(_ id: String, _ phase: String, _ done: Int) {
        let next: Phase = phase == "stored" ? .storing : .drawing
        update(id) { job in
            guard case .running = job.state else { return }
            job.state = .running(phase: next, done: done)
        }
    }

    private func update(_ id: String, _ change: (inout Job) -> Void) {
        jobs.withLock { jobs in
            guard var job = jobs[id] else { return }
            change(&job)
            jobs[id] = job
        }
    }

    private func expire() {
        let now = clock.now()
        jobs.withLock { jobs in
            for (id, job) in jobs {
                guard let finished = job.finishedAt else { continue }
                if now.timeIntervalSince(finished) > Self.forgetAfter {
                    jobs[id] = nil
                } else if case .ready(let ready) = job.state, now.timeIntervalSince(finished) > Self.keepCodesFor {
                    try? FileManager.default.removeItem(at: ready.file)
                    jobs[id]?.state = .dropped
                }
            }
        }
    }
}

/// Another batch is being generated on this instance.
struct BatchInProgress: Error {}
