import Foundation

/// The one source of "now" for domain rules, injectable for tests.
public protocol RedeemClock: Sendable {
    func now() -> Date
}

public struct SystemClock: RedeemClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that stands still until moved; for tests and the accelerated sandbox.
public final class ManualClock: RedeemClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    public init(_ start: Date = Date(timeIntervalSince1970: 1_767_225_600)) { self.current = start }

    public func now() -> Date { lock.withLock { current } }

    public func advance(by seconds: TimeInterval) {
        lock.withLock { current.addTimeInterval(seconds) }
    }
}

extension Date {
    /// Milliseconds since 1970, the unit every store column uses.
    public var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    public init(milliseconds: Int64) { self.init(timeIntervalSince1970: TimeInterval(milliseconds) / 1000) }
}
