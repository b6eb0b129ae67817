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

    public init(store: any SandboxRenewalStore, clock: any RedeemClock, logger: Logger, interval: Duration = .seconds(15)) {
        self.store = store
        self.clock = clock
        self.logger = logger
        self.interval = interval
    }

    /// A pass at start, then one per `interval`, until shutdown (which does not wait out the interval).
    public func run() async throws {
        let loop = QueueWorkerLoop(interval: interval)
        loop.wakeup.yield()
        await loop.run { [self] in await self.renewDue() }
    }

    @discardableResult
    public func renewDue() async -> Int {
        do {
            return try await store.renewSandboxSubscriptions(now: clock.now(), maxRenewals: 6) { period in
                (try? SandboxClock.expiry(period: period, from: Date(timeIntervalSince1970: 0)).timeIntervalSince1970) ?? 300
            }
        } catch {
            logger.error("sandbox renewals failed", metadata: ["error": "\(error)"])
            return 0
        }
    }
}
