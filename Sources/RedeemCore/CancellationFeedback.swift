/// Why a buyer cancelled, asked when they cancel in the portal (optional), or told to support. The values are Stripe's
/// `cancellation_details.feedback`, which a Stripe subscription's cancellation carries to Stripe's dashboard and back in
/// its webhooks; the labels are the reasons as Stripe's own customer portal words them. Kept on the purchase while it
/// is set to end, for the metrics' "why subscribers cancel".
public enum CancellationFeedback: String, CaseIterable, Codable, Sendable {
    case tooExpensive = "too_expensive"
    case unused
    case missingFeatures = "missing_features"
    case switchedService = "switched_service"
    case tooComplex = "too_complex"
    case lowQuality = "low_quality"
    case customerService = "customer_service"
    case other

    public var label: String {
        switch self {
        case .tooExpensive: "It’s too expensive"
        case .unused: "I don’t use it enough"
        case .missingFeatures: "Some features are missing"
        case .switchedService: "I’m switching to a different service"
        case .tooComplex: "It’s not easy enough to use"
        case .lowQuality: "The quality isn’t good enough"
        case .customerService: "Customer service fell short"
        case .other: "Another reason"
        }
    }

    /// The label for a cancellation with or without a reason.
    public static func label(_ feedback: CancellationFeedback?) -> String { feedback?.label ?? "No reason given" }

    /// A form's value: none for "" (the question is optional); a value not listed is refused.
    public static func parse(_ value: String?) throws(ValidationError) -> CancellationFeedback? {
        guard let value, !value.isEmpty else { return nil }
        guard let feedback = CancellationFeedback(rawValue: value) else {
            throw ValidationError(field: "feedback", reason: "must be one of the reasons listed, or none")
        }
        return feedback
    }
}
