import Foundation
import Logging
import RedeemCore
import RedeemStore
import ServiceLifecycle

/// What the reminders' pass needs: the reminders due now queued, each once; how many were.
protocol RenewalReminderStore: Sendable {
    func queueRenewalReminders(now: Date, limit: Int) async throws -> Int
}

/// Queues the reminders before a renewal (`RenewalReminder`) at start and then hourly, and wakes the e-mail worker
/// when it queued any. It runs only with e-mail on: nothing is queued to go out later.
struct RenewalReminderWorker: Service {
    let store: any RenewalReminderStore
    let clock: any RedeemClock
    let mailer: EmailDeliveryWorker
    let logger: Logger
    var interval: Duration = .seconds(3600)

    func run() async throws {
        let loop = QueueWorkerLoop(interval: interval)
        loop.wakeup.yield()
        await loop.run { [self] in await self.pass() }
    }

    /// One pass; how many reminders it queued.
    @discardableResult
    func pass() async -> Int {
        do {
            let queued = try await store.queueRenewalReminders(now: clock.now(), limit: 500)
            if queued > 0 { mailer.wake() }
            return queued
        } catch {
            logger.error("renewal reminders failed", metadata: ["error": "\(error)"])
            return 0
        }
    }
}
