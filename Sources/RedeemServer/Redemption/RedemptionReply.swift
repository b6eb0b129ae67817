import Foundation
import Hummingbird
import RedeemCore

/// The redeem route's answers: RevenueCat's codes 7849, 7852 and 7853, and our 7854 for a lapsed subscription.
enum RedemptionReply {
    case success(CustomerInfo, RedemptionInfo)
    case subscriptionExpired(CustomerInfo)
    case invalid
    case otherApp
    case belongsToOtherUser
    case expired(obfuscatedEmail: String?, resent: Bool)

    func response(from request: Request, context: some RequestContext) throws -> Response {
        switch self {
        case .success(let info, let redemption):
            return try JSONResponse(CustomerInfoWith(info, "redemption_info", redemption)).response(from: request, context: context)
        case .subscriptionExpired(let info):
            return try JSONResponse(
                Failure(
                    code: ErrorCode.subscriptionExpired.rawValue, message: "The purchase was redeemed, but its subscription has expired.",
                    customerInfo: info
                ), status: .forbidden
            ).response(from: request, context: context)
        case .invalid:
            return try APIError(.invalidRedemptionToken, "Invalid redemption token.").response(from: request, context: context)
        case .otherApp:
            return try APIError.forbidden("This redemption token belongs to another app.").response(from: request, context: context)
        case .belongsToOtherUser:
            return try APIError(.purchaseBelongsToOtherUser, "The purchase belongs to another user.")
                .response(from: request, context: context)
        case .expired(let email, let resent):
            return try JSONResponse(
                Failure(
                    code: ErrorCode.expiredRedemptionToken.rawValue,
                    message: resent ? "The link has expired. A new one has been sent to the purchase e-mail." : "The link has expired.",
                    errorInfo: email.map { ErrorInfo(obfuscatedEmail: $0, resent: resent) }
                ), status: .forbidden
            ).response(from: request, context: context)
        }
    }

    struct ErrorInfo: Encodable {
        let obfuscatedEmail: String
        let resent: Bool

        enum CodingKeys: String, CodingKey {
            case resent
            case obfuscatedEmail = "obfuscated_email"
        }
    }

    struct Failure: Encodable {
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
