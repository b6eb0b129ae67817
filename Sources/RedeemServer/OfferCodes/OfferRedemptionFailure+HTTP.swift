import Hummingbird
import RedeemCore

extension OfferRedemptionFailure {
    /// 400 for a code that is not one, 409 for one used up, 402 for a paid offer, 403 for the rest (`ErrorCode`).
    var status: HTTPResponse.Status { HTTPResponse.Status(code: errorCode.status) }
}
