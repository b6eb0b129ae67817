import Foundation
import RedeemCore

/// What the purchase was, for the app and for support; extra keys RevenueCat's SDKs ignore.
struct RedemptionInfo: Encodable, Hashable, Sendable {
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

extension RedemptionInfo: JSONWritable {
    /// As the synthesized `Encodable` writes it: keys sorted, no `purchaser_email` without an address.
    func writeJSON(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("entitlements", entitlements)
        writer.field("owner_app_user_id", ownerAppUserID)
        writer.field("product_identifier", productIdentifier)
        writer.field("purchase_id", purchaseID)
        if let purchaserEmail {
            writer.field("purchaser_email", purchaserEmail)
        }
        writer.field("store", store)
        writer.key("store_identifiers")
        writer.object(storeIdentifiers) { $0.string($1) }
        writer.endObject()
    }
}
