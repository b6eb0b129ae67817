import Foundation
import RedeemKit

/// One plain line per redemption outcome, worded as an app would show it.
enum OutcomeMessage {
    static func line(for result: WebPurchaseRedemptionResult) -> String {
        switch result {
        case .success(_, let redemption):
            let entitlements = redemption.entitlements.isEmpty ? "" : ", unlocks \(redemption.entitlements.sorted().joined(separator: ", "))"
            let buyer = redemption.purchaserEmail.map { ", bought by \($0)" } ?? ""
            return "Redeemed: \(redemption.productIdentifier) for \(redemption.ownerAppUserID)\(entitlements)\(buyer)."
        case .invalidToken:
            return "This link isn't valid."
        case .purchaseBelongsToOtherUser:
            return "This link belongs to another account."
        case .expired(let email, let resent):
            return resent
                ? "This link expired; a new one was sent to \(email)."
                : "This link expired; use the newest link sent to \(email)."
        case .expiredSubscription:
            return "The link was valid, but the subscription it bought has ended."
        case .error(let error):
            return "Something went wrong (\(reason(error))). Try again; the link works until it is redeemed."
        }
    }

    /// A short reason for an error, without the transport's full error dump.
    static func reason(_ error: RedeemError) -> String {
        switch error {
        case .network: "could not reach the server"
        case .rateLimited: "too many attempts; wait a moment"
        case .cancelled: "cancelled"
        case .server:
            "the server answered" + (error.statusCode.map { " HTTP \($0)" } ?? " with an error") + (error.message.map { ": \($0)" } ?? "")
        default: error.description
        }
    }

    static func notALink(baseURL: URL) -> String {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return "This is not a redemption link: expected <scheme>://redeem_web_purchase?redemption_token=… or \(base)/r/<token>."
    }
}
