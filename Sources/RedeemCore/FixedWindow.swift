import Foundation

/// The rate-limit window a moment falls in: windows of `length` start at whole multiples of it since 1970, so every
/// counter (in memory, in the database, batched) agrees on where one ends.
public struct FixedWindow: Hashable, Sendable {
    /// Milliseconds since 1970, as the database's `window_start`.
    public let start: Int64
    public let milliseconds: Int64

    public init(length: TimeInterval, containing now: Date) {
        milliseconds = Int64(length * 1000)
        start = now.millisecondsSince1970 / milliseconds * milliseconds
    }

    public var ends: Date { Date(milliseconds: start + milliseconds) }
}
