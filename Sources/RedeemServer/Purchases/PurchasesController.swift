import Foundation
import HTTPTypes
import Hummingbird
import RedeemCore
import RedeemStore

/// The server API (secret key): record a purchase made anywhere, exactly once per idempotency key.
struct PurchasesController {
    let service: PurchaseService

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("/purchases", use: create)
    }

    struct GrantResponse: Encodable {
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

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<GrantResponse> {
        let appID = try context.secretAppID()
        guard let key = request.headers[.idempotencyKey], (1...255).contains(key.count) else {
            throw APIError.badRequest("An Idempotency-Key header (1–255 characters) is required.", field: "Idempotency-Key")
        }
        try request.requireJSONContentType()
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let input = try request.decodeJSON(GrantRequest.self, from: body, context: context)
        let grant = try PurchaseGrant(input, appID: appID, now: service.clock.now())
        let recorded = try await service.record(
            grant, idempotency: Idempotency(key: key, fingerprint: try Self.fingerprint(body)), sendReceipt: input.sendReceiptEmail == true
        )
        return JSONResponse(
            GrantResponse(purchase: recorded.purchase, customerInfo: recorded.customerInfo, link: recorded.link),
            status: recorded.created ? .created : .ok
        )
    }

    /// SHA-256 of the body's JSON with sorted keys, so a retry that reorders keys or whitespace still matches.
    static func fingerprint(_ body: ByteBuffer) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView), options: [.fragmentsAllowed])
        let canonical = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        return SecretToken.hash(String(decoding: canonical, as: UTF8.self))
    }
}

extension HTTPField.Name {
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
}
