import Foundation

/// Time and waiting, injectable so tests never sleep for real.
public protocol RedeemClock: Sendable {
    func now() -> Date
    /// Waits `seconds`; throws `CancellationError` if the task is cancelled.
    func sleep(seconds: TimeInterval) async throws
}

/// The wall clock and `Task.sleep`.
public struct SystemClock: RedeemClock {
    public init() {}

    public func now() -> Date { Date() }

    public func sleep(seconds: TimeInterval) async throws {
        guard seconds > 0 else { return try Task.checkCancellation() }
        try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }
}
