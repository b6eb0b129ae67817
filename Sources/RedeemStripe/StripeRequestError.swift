/// A request that would be invalid before it reaches Stripe: which field, and why.
public struct StripeRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    public let field: String
    public let reason: String

    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(field): \(reason)" }
}
