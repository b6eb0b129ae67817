/// Why a `Stripe-Signature` header was rejected.
public struct StripeSignatureError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Reason: Hashable, Sendable {
        case missingHeader, malformedHeader, noV1Signature, timestampOutsideTolerance, noMatchingSignature
    }

    private let reason: Reason
    private init(_ reason: Reason) { self.reason = reason }

    /// No header, or an empty one.
    public static let missingHeader = StripeSignatureError(.missingHeader)
    /// Not a list of `key=value` pairs with exactly one integer `t`.
    public static let malformedHeader = StripeSignatureError(.malformedHeader)
    /// A well-formed header without any `v1` signature (e.g. `v0` only).
    public static let noV1Signature = StripeSignatureError(.noV1Signature)
    /// Signed correctly, but `t` is further from now than the tolerance (replay or clock skew).
    public static let timestampOutsideTolerance = StripeSignatureError(.timestampOutsideTolerance)
    /// No `v1` value matches the payload under this secret.
    public static let noMatchingSignature = StripeSignatureError(.noMatchingSignature)

    public var description: String {
        switch reason {
        case .missingHeader: "missing Stripe-Signature header"
        case .malformedHeader: "malformed Stripe-Signature header"
        case .noV1Signature: "no v1 signature in Stripe-Signature header"
        case .timestampOutsideTolerance: "Stripe-Signature timestamp outside tolerance"
        case .noMatchingSignature: "no Stripe-Signature v1 value matches the payload"
        }
    }
}
