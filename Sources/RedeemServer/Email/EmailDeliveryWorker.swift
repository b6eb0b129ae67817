import Foundation
import Logging
import RedeemCore
import RedeemMail
import RedeemStore
import ServiceLifecycle

/// Sends queued e-mails: at least once, with backoff on transient failures, surviving restarts.
///
/// Rows are leased before sending, so several instances never send one row at the same time; a crash after the
/// server accepted a message but before it was marked sent can repeat it (the Message-ID stays the same for
/// receivers to spot), but nothing is dropped.
public final class EmailDeliveryWorker: Service, Sendable {
    let store: any EmailStore
    let composer: EmailComposer
    let client: SMTPClient
    let clock: any RedeemClock
    let logger: Logger
    let pollInterval: Duration
    static let maxAttempts = 12
    /// SMTP sessions at once: one server, so a few suffice; a stuck session holds one slot until its timeout.
    let concurrency = 4
    private let loop: QueueWorkerLoop

    init(
        store: any EmailStore, composer: EmailComposer, settings: MailSettings, clock: any RedeemClock, logger: Logger,
        pollInterval: Duration = .seconds(1)
    ) {
        self.store = store
        self.composer = composer
        self.client = SMTPClient(configuration: settings.smtp)
        self.clock = clock
        self.logger = logger
        self.pollInterval = pollInterval
        self.loop = QueueWorkerLoop(interval: pollInterval)
    }

    /// Asks the worker to look for due e-mails now rather than at its next poll.
    func wake() { loop.wakeup.yield() }

    public func run() async throws {
        await checkServer()
        await loop.run { [self] in await self.drain() }
    }

    /// Connects to the SMTP server once at start-up and says plainly when it cannot: e-mails still queue (and are
    /// retried), but an operator sees the mistake in the log now, not after a buyer's receipt fails.
    @discardableResult
    func checkServer() async -> Bool {
        let smtp = client.configuration
        do {
            try await client.probe()
            logger.info("SMTP server reachable", metadata: ["host": "\(smtp.host)", "security": "\(smtp.security)"])
            return true
        } catch {
            logger.error(
                "SMTP server check failed: e-mail will not be delivered until this is fixed (see --smtp-url in the README)",
                metadata: ["host": "\(smtp.host)", "port": "\(smtp.port)", "security": "\(smtp.security)", "error": "\(error)"])
            return false
        }
    }

    /// Sends everything due now, `concurrency` at a time; returns how many were sent. Each send is bounded by the SMTP
    /// timeout (connect and whole transfer), well inside the lease.
    @discardableResult
    public func drain() async -> Int {
        await ConcurrentDrain.run(limit: concurrency) { free in
            do {
                return try await store.claimDueEmails(now: clock.now(), lease: 120, limit: free)
            } catch {
                logger.error("e-mail queue unavailable", metadata: ["error": "\(error)"])
                return []
            }
        } work: { [self] email in
            await send(email)
        }
    }

    func send(_ email: QueuedEmail) async -> Bool {
        let now = clock.now()
        do {
            let message = try await composer.compose(email, now: now)
            try await client.send(message, messageID: "\(email.id)@redeem")
            try await store.markEmailSent(id: email.id, at: clock.now())
            RedeemMetrics.emailAttempt("sent")
            logger.info("e-mail sent", metadata: ["email_id": "\(email.id)", "kind": "\(email.kind.rawValue)"])
            return true
        } catch {
            // Shutdown interrupted it: no attempt is spent; the lease keeps the e-mail, sent again once it runs out.
            if Task.isCancelled {
                logger.info("e-mail interrupted by shutdown", metadata: ["email_id": "\(email.id)"])
                return false
            }
            let attempts = email.attempts + 1
            let retryAt = Self.retryAt(after: error, attempts: attempts, now: now)
            logger.warning(
                "e-mail not sent",
                metadata: [
                    "email_id": "\(email.id)", "attempt": "\(attempts)", "retry": "\(retryAt != nil)", "error": "\(error)",
                ])
            try? await store.markEmailFailed(id: email.id, error: "\(error)", retryAt: retryAt, at: now)
            RedeemMetrics.emailAttempt(retryAt == nil ? "failed" : "retry")
            return false
        }
    }

    /// When a failed e-mail (purchase or team) is tried again: after a transient failure, with backoff, until
    /// `maxAttempts`; nil when it has failed for good.
    static func retryAt(after error: any Error, attempts: Int, now: Date) -> Date? {
        let transient = (error as? MailError)?.isTransient ?? !(error is StoreError)
        return transient && attempts < maxAttempts ? now.addingTimeInterval(backoff(attempts: attempts)) : nil
    }

    /// 30 s, 1 min, 2 min, … up to an hour.
    static func backoff(attempts: Int) -> TimeInterval {
        min(3600, 30 * pow(2, Double(max(0, attempts - 1))))
    }
}
