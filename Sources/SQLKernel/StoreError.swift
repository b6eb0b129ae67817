/// Storage failures that callers act on. Wraps a private enum so cases can grow.
public struct StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    enum Code: Equatable, Sendable {
        case notFound(String)
        case conflict(String)
        case corrupt(String)
        case badURL(String)
        case idempotencyMismatch
        case uniqueViolation(String)
        case unavailable(String)
        case raceLost(String, retryable: Bool)
    }

    let code: Code

    public static func notFound(_ what: String) -> StoreError { StoreError(code: .notFound(what)) }
    public static func conflict(_ what: String) -> StoreError { StoreError(code: .conflict(what)) }
    package static func corrupt(column: String) -> StoreError { StoreError(code: .corrupt(column)) }
    public static func badURL(_ reason: String) -> StoreError { StoreError(code: .badURL(reason)) }
    package static func uniqueViolation(_ detail: String) -> StoreError { StoreError(code: .uniqueViolation(detail)) }
    public static let idempotencyMismatch = StoreError(code: .idempotencyMismatch)
    /// The database cannot be reached or is restarting; nothing was done, and trying again later may succeed.
    public static func unavailable(_ reason: String) -> StoreError { StoreError(code: .unavailable(reason)) }

    /// A concurrent change won: a statement's re-check of the facts it was decided on failed, a row it refers to was
    /// deleted meanwhile, or the engine aborted it as a deadlock victim or a serialization failure. Nothing of it was
    /// committed; deciding again on fresh facts may succeed. `retryable`: the same statement may simply run again.
    package static func raceLost(_ detail: String, retryable: Bool = false) -> StoreError {
        StoreError(code: .raceLost(detail, retryable: retryable))
    }

    public var isNotFound: Bool { if case .notFound = code { true } else { false } }
    public var isConflict: Bool {
        switch code {
        case .conflict, .uniqueViolation: true
        default: false
        }
    }
    public var isIdempotencyMismatch: Bool { code == .idempotencyMismatch }
    public var isUnavailable: Bool { if case .unavailable = code { true } else { false } }
    public var isRaceLost: Bool { if case .raceLost = code { true } else { false } }
    /// A deadlock victim or serialization failure: the whole transaction may run again as it was.
    package var isRetryableRace: Bool { if case .raceLost(_, true) = code { true } else { false } }

    public var description: String {
        switch code {
        case .notFound(let what): "\(what) not found"
        case .conflict(let what): what
        case .corrupt(let column): "stored column '\(column)' is missing or malformed"
        case .badURL(let reason): "database URL: \(reason)"
        case .idempotencyMismatch: "the idempotency key was used with a different request"
        case .uniqueViolation(let detail): "already exists (\(detail))"
        case .unavailable(let reason): "the database is unavailable (\(reason))"
        case .raceLost(let detail, _): "a concurrent change won (\(detail)); nothing was committed"
        }
    }
}
