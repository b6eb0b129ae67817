import RedeemCore

/// A request's own ID, so that sending it again (a double click, a client's retry) does its work once: a console
/// form's hidden field (`FormID`), or an admin API caller's `Idempotency-Key` header. Scoped to the app it names.
public enum RequestID: Sendable, Hashable {
    case form(String)
    case idempotencyKey(String)

    public var value: String {
        switch self {
        case .form(let id), .idempotencyKey(let id): id
        }
    }

    /// The ID of what this request makes (`Identifier.derived`).
    func derivedID(prefix: String, scope: String) -> String { Identifier.derived(prefix: prefix, scope: scope, from: value) }

    /// An optional `Idempotency-Key` header: nil when absent, 400 unless 1–255 characters.
    static func idempotencyKey(header key: String?) throws -> RequestID? {
        guard let key else { return nil }
        guard (1...255).contains(key.count) else {
            throw APIError.badRequest("An Idempotency-Key header has 1–255 characters.", field: "Idempotency-Key")
        }
        return .idempotencyKey(key)
    }

    /// The refusal when this ID already did something else (`done`, "added https://…"): the same form or key sent for
    /// another request.
    func refusal(_ done: String) -> APIError {
        switch self {
        case .form: .conflict("This form already \(done); reload the page to make another.")
        case .idempotencyKey: .conflict("This Idempotency-Key already \(done); send a new key to make another.")
        }
    }
}
