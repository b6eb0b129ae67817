import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `POST /v1/subscribers/redeem_offer_code`: an offer code typed in the app.
struct OfferCodeController {
    let store: any OfferCodeStore
    let clock: any RedeemClock
    let limiter: RateLimiter
    let publicURL: URL

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("/subscribers/redeem_offer_code", use: redeem)
    }

    struct RedeemRequest: Decodable {
        let appUserID: String
        let code: String

        enum CodingKeys: String, CodingKey {
            case code
            case appUserID = "app_user_id"
        }
    }

    @Sendable func redeem(_ request: Request, context: AppRequestContext) async throws -> Response {
        let appID = try context.sdkAppID()
        let input = try await request.decodeJSON(RedeemRequest.self, context: context)
        let claimant = try AppUserID.parse(input.appUserID)
        try await limiter.offerRedemption(ip: context.remoteIP, appID: appID, user: claimant)
        let now = clock.now()
        var redemptionRequest = OfferCodeRedemptionRequest(
            appID: appID, code: input.code, claimant: claimant, channel: .sdk, isSandbox: context.key?.kind == .publicSandbox, now: now
        )
        redemptionRequest.includeCustomerInfo = true
        switch try await store.redeemOfferCode(redemptionRequest) {
        case .success(let redemption):
            // Asked for above: the CustomerInfo the redemption's own transaction committed.
            guard let info = redemption.customerInfo else { throw StoreError.conflict("the redemption returned no CustomerInfo") }
            return try JSONResponse(CustomerInfoWith(info, "offer_redemption", OfferRedemptionInfo(redemption)))
                .response(from: request, context: context)
        case .failure(let failure):
            var error = APIError(failure.status, code: failure.code, message: failure.message)
            if failure == .paymentRequired, let code = OfferCode.normalize(input.code) ?? OfferCode.normalizeCustom(input.code) {
                error.extra["redeem_url"] = OfferCodeLinks.redeemPageBase(publicURL: publicURL, appID: appID) + code
            }
            return try error.response(from: request, context: context)
        }
    }
}

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

/// What the redemption granted; extra keys RevenueCat's SDKs ignore.
struct OfferRedemptionInfo: Encodable, Sendable {
    let offerID: String
    let referenceName: String
    let productIdentifier: String
    let entitlements: [String]
    let kind: OfferRedemptionKind
    let purchaseID: String
    let expiresDate: Date?

    init(_ redemption: OfferCodeRedemption) {
        offerID = redemption.offer.id
        referenceName = redemption.offer.referenceName
        productIdentifier = redemption.product.id
        entitlements = redemption.product.entitlements
        kind = redemption.kind
        purchaseID = redemption.purchase.id
        expiresDate = redemption.purchase.expiresDate
    }

    enum CodingKeys: String, CodingKey {
        case entitlements, kind
        case offerID = "offer_id"
        case referenceName = "offer_code_ref_name"
        case productIdentifier = "product_identifier"
        case purchaseID = "purchase_id"
        case expiresDate = "expires_date"
    }
}
