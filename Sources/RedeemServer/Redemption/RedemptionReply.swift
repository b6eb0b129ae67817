import Foundation
import RedeemCore

/// The redeem route's answers: RevenueCat's codes 7849, 7852 and 7853, and our 7854 for a lapsed subscription.
enum RedemptionReply {
    case success(CustomerInfo, RedemptionInfo)
    case subscriptionExpired(CustomerInfo)
    case invalid
    case otherApp
    case belongsToOtherUser
    /// An offer code's purchase the claimant cannot have (7864 claimed before, 7865 not eligible).
    case offerRefused(OfferRedemptionFailure)
    case expired(obfuscatedEmail: String?, resent: Bool)

    /// The 403 body of an expired link or a lapsed subscription.
    var failure: Failure {
        get throws {
            switch self {
            case .subscriptionExpired(let info):
                return Failure(
                    code: ErrorCode.subscriptionExpired.rawValue, message: "The purchase was redeemed, but its subscription has expired.",
                    customerInfo: info)
            case .expired(let email, let resent):
                return Failure(
                    code: ErrorCode.expiredRedemptionToken.rawValue,
                    message: resent ? "The link has expired. A new one has been sent to the purchase e-mail." : "The link has expired.",
                    errorInfo: email.map { ErrorInfo(obfuscatedEmail: $0, resent: resent) })
            default: throw error
            }
        }
    }

    /// The plain error of a refused redemption.
    var error: APIError {
        switch self {
        case .invalid: APIError(.invalidRedemptionToken, "Invalid redemption token.")
        case .otherApp: APIError.forbidden("This redemption token belongs to another app.")
        case .belongsToOtherUser: APIError(.purchaseBelongsToOtherUser, "The purchase belongs to another user.")
        case .offerRefused(let failure):
            APIError(failure.errorCode, "This purchase came from an offer code this user cannot have: \(failure.message)")
        case .success, .subscriptionExpired, .expired: APIError(.internalError, "Not a refusal.")
        }
    }

    struct ErrorInfo: Encodable, Hashable, Sendable {
        let obfuscatedEmail: String
        let resent: Bool

        enum CodingKeys: String, CodingKey {
            case resent
            case obfuscatedEmail = "obfuscated_email"
        }
    }

    struct Failure: Encodable, Hashable, Sendable {
        let code: Int
        let message: String
        var errorInfo: ErrorInfo? = nil
        var customerInfo: CustomerInfo? = nil

        enum CodingKeys: String, CodingKey {
            case code, message
            case errorInfo = "purchase_redemption_error_info"
            case customerInfo = "customer_info"
        }
    }
}
