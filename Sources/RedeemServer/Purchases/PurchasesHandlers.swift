import Foundation
import NIOCore
import RedeemCore
import RedeemStore

/// `POST /v1/purchases` (secret key): record a purchase made anywhere, exactly once per idempotency key.
extension APIHandlers {
    func createPurchase(_ input: Operations.CreatePurchase.Input) async throws -> Operations.CreatePurchase.Output {
        let context = try self.context
        let appID = try context.secretAppID()
        let key = input.headers.idempotencyKey
        guard (1...255).contains(key.count) else {
            throw APIError.badRequest("An Idempotency-Key header (1–255 characters) is required.", field: "Idempotency-Key")
        }
        guard case .json(let request) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        guard let body = context.jsonBody else { throw APIError.badRequest("A JSON body is required.") }
        let service = deps.purchases
        let grant = try PurchaseGrant(request, appID: appID, now: service.clock.now())
        let recorded = try await service.record(
            grant, idempotency: Idempotency(key: key, fingerprint: try GrantResponse.fingerprint(body)),
            sendReceipt: request.sendReceiptEmail == true
        )
        let response = GrantResponse(
            purchase: recorded.purchase, customerInfo: deps.managed(recorded.customerInfo, appID: appID), link: recorded.link)
        return recorded.created ? .created(.init(body: .json(response))) : .ok(.init(body: .json(response)))
    }
}

/// The purchase as recorded, the buyer's CustomerInfo, and a redemption link when the app's policy allows one.
struct GrantResponse: Encodable, Hashable, Sendable {
    let purchase: Purchase
    let customerInfo: CustomerInfo
    let link: RedemptionLink?

    enum CodingKeys: String, CodingKey {
        case purchase
        case customerInfo = "customer_info"
        case redemptionURL = "redemption_url"
        case redemptionHTTPSURL = "redemption_https_url"
        case redemptionExpiresAt = "redemption_expires_at"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(purchase, forKey: .purchase)
        try c.encode(customerInfo, forKey: .customerInfo)
        try c.encodeIfPresent(link?.customSchemeURL, forKey: .redemptionURL)
        try c.encodeIfPresent(link?.httpsURL, forKey: .redemptionHTTPSURL)
        try c.encodeIfPresent(link?.expiresAt, forKey: .redemptionExpiresAt)
    }
}

extension GrantResponse {
    /// SHA-256 of the body's JSON with sorted keys, so a retry that reorders keys or whitespace still matches.
    static func fingerprint(_ body: ByteBuffer) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView), options: [.fragmentsAllowed])
        let canonical = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        return SecretToken.hash(String(decoding: canonical, as: UTF8.self))
    }
}
