import NIOCore
import PostgresNIO
import SQLKernel

/// PostgresNIO's errors as the kernel's neutral `StoreError`s, so nothing above the engine reads a SQLSTATE.
enum PostgresErrors {
    /// `error` as a `StoreError` when it is one the store acts on; otherwise unchanged.
    static func neutral(_ error: any Error) -> any Error {
        if error is StoreError { return error }
        return unavailable(error) ?? constraint(error) ?? pooler(error) ?? error
    }

    /// A named statement that the server connection already has (42P05) or no longer has (26000): the connection is a
    /// transaction pooler's, shared by other clients between transactions, that does not keep prepared statements
    /// (PgBouncer before 1.21, or without `max_prepared_statements`). Said plainly, since the driver's own error text
    /// is a generic placeholder.
    static func pooler(_ error: any Error) -> StoreError? {
        guard let state = (error as? PSQLError)?.serverInfo?[.sqlState], ["42P05", "26000"].contains(state) else { return nil }
        return .badURL(
            "SQLSTATE \(state): the server connection's prepared statements are not this client's; behind a transaction "
                + "pooler that cannot keep prepared statements, add ?prepared_statements=off to the URL")
    }

    /// A failure to reach the server (down, restarting, refusing connections) as `StoreError.unavailable`, so callers
    /// answer 503 rather than 500; nil for anything else. Nothing was committed when one of these is thrown.
    static func unavailable(_ error: any Error) -> StoreError? {
        if let error = error as? PSQLError {
            switch error.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
                return .unavailable("\(error.code)")
            case .server:
                // Class 08: connection exceptions; 57P01-57P03: shutting down or starting up; 53300: too many connections.
                let state = error.serverInfo?[.sqlState] ?? ""
                if state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(state) { return .unavailable("SQLSTATE \(state)") }
            default: break
            }
        }
        // The pool gave up creating connections (its circuit breaker); its error type is not public API.
        if String(describing: type(of: error)) == "ConnectionPoolError" { return .unavailable("\(error)") }
        if error is ChannelError || error is IOError { return .unavailable("\(error)") }
        return nil
    }

    /// What the server refused because of other writers:
    /// - 23505, a unique violation;
    /// - RD001, `redeem_assert` (migration 18): a one-statement write found the facts it was decided on changed;
    /// - 23503, a foreign key: a row it refers to was deleted meanwhile;
    /// - 40P01 and 40001, a deadlock victim or a serialization failure, which may simply run again.
    static func constraint(_ error: any Error) -> StoreError? {
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] else { return nil }
        let message = error.serverInfo?[.message] ?? state
        switch state {
        case "23505": return .uniqueViolation(message)
        case "RD001", "23503": return .raceLost("SQLSTATE \(state): \(message)")
        case "40P01", "40001": return .raceLost("SQLSTATE \(state): \(message)", retryable: true)
        default: return nil
        }
    }
}
