import Foundation
import RedeemKit

/// RedeemKit's clock with real but shortened waits: a requested wait of `s` seconds sleeps
/// `s / speedup`. Keeps every requested wait, to show the retry schedule that ran.
final class QuickRetryClock: RedeemClock, @unchecked Sendable {
    let speedup: Double
    private let lock = NSLock()
    private var waits: [TimeInterval] = []

    init(speedup: Double) {
        self.speedup = speedup
    }

    /// The waits RedeemKit asked for, in seconds, in order.
    var requestedWaits: [TimeInterval] { lock.withLock { waits } }

    func now() -> Date { Date() }

    func sleep(seconds: TimeInterval) async throws {
        lock.withLock { waits.append(seconds) }
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds / speedup) * 1_000_000_000))
    }
}
