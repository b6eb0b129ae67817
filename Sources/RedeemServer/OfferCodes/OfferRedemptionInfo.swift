import Foundation
import RedeemCore
import RedeemStore

/// What the redemption granted; extra keys RevenueCat's SDKs ignore.
struct OfferRedemptionInfo: Encodable, Hashable, Sendable {
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

extension OfferRedemptionInfo: JSONWritable {
    /// As the synthesized `Encodable` writes it: keys sorted, no `expires_date` for a one-time product.
    func writeJSON(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("entitlements")
        writer.beginArray()
        for entitlement in entitlements { writer.string(entitlement) }
        writer.endArray()
        if let expiresDate {
            writer.key("expires_date")
            writer.string(ISODate.format(expiresDate))
        }
        writer.key("kind")
        writer.string(kind.rawValue)
        writer.key("offer_code_ref_name")
        writer.string(referenceName)
        writer.key("offer_id")
        writer.string(offerID)
        writer.key("product_identifier")
        writer.string(productIdentifier)
        writer.key("purchase_id")
        writer.string(purchaseID)
        writer.endObject()
    }
}
