import Hummingbird
import RedeemCore

extension OfferRedemptionFailure {
    /// 400 for a code that is not one, 409 for one used up, 402 for a paid offer, 403 for the rest.
    var status: HTTPResponse.Status {
        switch self {
        case .invalid: .badRequest
        case .exhausted, .alreadyRedeemed: .conflict
        case .paymentRequired: HTTPResponse.Status(code: 402, reasonPhrase: "Payment Required")
        case .expired, .inactive, .notEligible, .wouldDowngrade, .quotaReached: .forbidden
        }
    }
}
