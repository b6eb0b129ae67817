import Foundation
import Logging
import RedeemCore
import RedeemStore
import ServiceLifecycle

/// Renews sandbox subscriptions on the accelerated clock, so a whole lifecycle can be watched in minutes.
public struct SandboxRenewalWorker: Service {
    let store: any SandboxRenewalStore
    let clock: any RedeemClock
    let logger: Logger
    let interval: Duration
    /// Set when e-mail is on: the buyer gets each renewal's receipt (`renewed`, `trial_converted`), or the notice of a
    /// plan that waited for the renewal (`plan_changed`).
    let mail: LifecycleMail?

    public init(
        store: any SandboxRenewalStore, clock: any RedeemClock, logger: Logger, interval: Duration = .seconds(15), mail: LifecycleMail? = nil
    ) {
        self.store = store
        self.clock = clock
        self.logger = logger
        self.interval = interval
        self.mail = mail
    }

    /// A pass every 15 seconds, or often enough to convert a shortened sandbox trial within a third of its length.
    public static func interval(trialLength: TimeInterval) -> Duration {
        .milliseconds(Int64(min(15, max(1, trialLength / 3)) * 1000))
    }

    /// A pass at start, then one per `interval`, until shutdown (which does not wait out the interval).
    public func run() async throws {
        let loop = QueueWorkerLoop(interval: interval)
        loop.wakeup.yield()
        await loop.run { [self] in await self.renewDue() }
    }

    /// Trials that ended convert first (their paid period starts at the trial's end), then due subscriptions renew.
    @discardableResult
    public func renewDue() async -> Int {
        do {
            let converted = try await store.convertSandboxTrials(now: clock.now(), mail: mail) { trialEnd, period in
                (try? SandboxClock.paidPeriodEnd(trialEnd: trialEnd, period: period)) ?? trialEnd.addingTimeInterval(300)
            }
            return try await converted
                + store.renewSandboxSubscriptions(now: clock.now(), maxRenewals: 6, mail: mail) { period in
                    (try? SandboxClock.expiry(period: period, from: Date(timeIntervalSince1970: 0)).timeIntervalSince1970) ?? 300
                }
        } catch {
            logger.error("sandbox renewals failed", metadata: ["error": "\(error)"])
            return 0
        }
    }
}
