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
        writer.field("entitlements", entitlements)
        if let expiresDate {
            writer.field("expires_date", ISODate.format(expiresDate))
        }
        writer.field("kind", kind.rawValue)
        writer.field("offer_code_ref_name", referenceName)
        writer.field("offer_id", offerID)
        writer.field("product_identifier", productIdentifier)
        writer.field("purchase_id", purchaseID)
        writer.endObject()
    }
}
