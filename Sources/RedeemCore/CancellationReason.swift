/// Why a subscription was set to end, as the metrics count it: the buyer's reason (nil when they gave none), or the
/// erasure of its customer (RevenueCat's `DELETE /v1/subscribers/{id}`), which ends their web subscriptions unasked.
public enum CancellationReason: Hashable, Sendable {
    case buyer(CancellationFeedback?)
    case erasure

    /// The API's value: Stripe's `cancellation_details.feedback` value, `none`, or `erased`.
    public var value: String {
        switch self {
        case .buyer(let feedback): feedback?.rawValue ?? "none"
        case .erasure: "erased"
        }
    }

    public init?(value: String) {
        switch value {
        case "none": self = .buyer(nil)
        case "erased": self = .erasure
        default:
            guard let feedback = CancellationFeedback(rawValue: value) else { return nil }
            self = .buyer(feedback)
        }
    }

    public var label: String {
        switch self {
        case .buyer(let feedback): CancellationFeedback.label(feedback)
        case .erasure: "Customer erased on request"
        }
    }

    /// Among reasons given equally often: the buyer's in `CancellationFeedback`'s order, then none given, then erasures.
    var rank: Int {
        switch self {
        case .buyer(let feedback?): CancellationFeedback.allCases.firstIndex(of: feedback) ?? CancellationFeedback.allCases.count
        case .buyer(nil): CancellationFeedback.allCases.count
        case .erasure: CancellationFeedback.allCases.count + 1
        }
    }
}
