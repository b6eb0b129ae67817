import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `POST /v1/subscribers/redeem_purchase`: a redemption link opened in the app, RevenueCat's wire format.
struct RedemptionController {
    let store: SQLStore
    let clock: any RedeemClock
    let limiter: RateLimiter
    let outbox: Outbox

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("/subscribers/redeem_purchase", use: redeem)
        group.post("/redemption_links/request", use: requestNewLink)
    }

    struct RedeemRequest: Decodable {
        let appUserID: String
        let redemptionToken: String

        enum CodingKeys: String, CodingKey {
            case appUserID = "app_user_id"
            case redemptionToken = "redemption_token"
        }
    }

    @Sendable func redeem(_ request: Request, context: AppRequestContext) async throws -> Response {
        let appID = try context.sdkAppID()
        let input = try await request.decodeJSON(RedeemRequest.self, context: context)
        let claimant = try AppUserID.parse(input.appUserID)
        try await limiter.check([
            ("redeem:ip:\(context.remoteIP ?? "unknown")", limiter.limits.redeemPerIP),
            ("redeem:user:\(appID):\(claimant.rawValue)", limiter.limits.redeemPerUser),
        ])
        guard RedemptionLink.isWellFormed(input.redemptionToken) else {
            return try RedemptionReply.invalid.response(from: request, context: context)
        }
        let now = clock.now()
        // One transaction claims, associates, records the attempt and reads the answer (CustomerInfo and product).
        let redemption = try await store.redeemDescribed(
            appID: appID, tokenHash: SecretToken.hash(input.redemptionToken), claimant: claimant, now: now
        )
        let reply: RedemptionReply
        switch redemption.outcome {
        case .redeemed(let purchase, _):
            let info = try redemption.customerInfo.unwrap()
            reply = .success(info, RedemptionInfo(purchase: purchase, owner: info.subscriber.originalAppUserID,
                                                  entitlements: redemption.product?.entitlements ?? []))
        case .subscriptionExpired:
            reply = .subscriptionExpired(try redemption.customerInfo.unwrap())
        case .invalid: reply = .invalid
        case .otherApp: reply = .otherApp
        case .belongsToOtherUser: reply = .belongsToOtherUser
        case .expired(let purchase):
            let resent = try await outbox.queueNewLink(for: purchase)
            reply = .expired(obfuscatedEmail: purchase.email.map(EmailMasking.mask), resent: resent)
        }
        return try reply.response(from: request, context: context)
    }
}

extension RedemptionController {
    struct NewLinkRequest: Decodable { let email: String }
    struct Accepted: Encodable { let status = "accepted" }

    /// `POST /v1/redemption_links/request`: e-mails a new link for each of the app's purchases billed to `email`.
    /// The answer is the same whether or not the address has purchases, so it reveals nothing.
    @Sendable func requestNewLink(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Accepted> {
        let appID = try context.sdkAppID()
        let input = try await request.decodeJSON(NewLinkRequest.self, context: context)
        let email = input.email.trimmingCharacters(in: .whitespaces).lowercased()
        guard Formats.isEmail(email) else { throw ValidationError(field: "email", reason: "must be an e-mail address") }
        try await limiter.check([
            ("newlink:ip:\(context.remoteIP ?? "unknown")", limiter.limits.newLinkPerIP),
            ("newlink:email:\(appID):\(SecretToken.hash(email))", limiter.limits.newLinkPerEmail),
        ])
        for purchase in try await store.purchases(appID: appID, email: email) {
            _ = try await outbox.queueNewLink(for: purchase)
        }
        return JSONResponse(Accepted(), status: .accepted)
    }
}

extension Optional {
    /// The value a described redemption always carries for its outcome.
    fileprivate func unwrap() throws -> Wrapped {
        guard let self else { throw StoreError.conflict("redemption answer missing") }
        return self
    }
}

/// What the purchase was, for the app and for support; extra keys RevenueCat's SDKs ignore.
struct RedemptionInfo: Encodable, Sendable {
    let purchaseID: String
    let purchaserEmail: String?
    let store: String
    let storeIdentifiers: [String: String]
    let ownerAppUserID: String
    let productIdentifier: String
    let entitlements: [String]

    enum CodingKeys: String, CodingKey {
        case store, entitlements
        case purchaseID = "purchase_id"
        case purchaserEmail = "purchaser_email"
        case storeIdentifiers = "store_identifiers"
        case ownerAppUserID = "owner_app_user_id"
        case productIdentifier = "product_identifier"
    }

    init(purchase: Purchase, owner: String, entitlements: [String]) {
        self.purchaseID = purchase.id
        self.purchaserEmail = purchase.email
        self.store = purchase.store.rawValue
        self.storeIdentifiers = ["store_transaction_id": purchase.storeTransactionID]
        self.ownerAppUserID = owner
        self.productIdentifier = purchase.productID
        self.entitlements = entitlements
    }
}
