import Foundation

/// A one-time purchase (`subscriber.non_subscriptions[productIdentifier][]`).
public struct NonSubscriptionTransaction: Hashable, Sendable {
    public let transactionIdentifier: String
    public let productIdentifier: String
    public let purchaseDate: Date?
    public let store: Store?
    public let isSandbox: Bool
    public let storeTransactionID: String?
    public let displayName: String?
    public let price: Price?
}

extension NonSubscriptionTransaction {
    struct Wire: Codable {
        var id: String
        var purchaseDate: Date?
        var store: Store?
        var isSandbox: Bool?
        var storeTransactionID: String?
        var displayName: String?
        var price: Price?

        enum CodingKeys: String, CodingKey {
            case id
            case purchaseDate = "purchase_date"
            case store
            case isSandbox = "is_sandbox"
            case storeTransactionID = "store_transaction_id"
            case displayName = "display_name"
            case price
        }

        init(_ transaction: NonSubscriptionTransaction) {
            id = transaction.transactionIdentifier
            purchaseDate = transaction.purchaseDate
            store = transaction.store
            isSandbox = transaction.isSandbox
            storeTransactionID = transaction.storeTransactionID
            displayName = transaction.displayName
            price = transaction.price
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = c.lenientString(forKey: .id) ?? ""
            purchaseDate = c.lenient(Date.self, forKey: .purchaseDate)
            store = c.lenient(Store.self, forKey: .store)
            isSandbox = c.lenient(Bool.self, forKey: .isSandbox)
            storeTransactionID = c.lenientString(forKey: .storeTransactionID)
            displayName = c.lenient(String.self, forKey: .displayName)
            price = c.lenient(Price.self, forKey: .price)
        }

        func model(productIdentifier: String) -> NonSubscriptionTransaction {
            NonSubscriptionTransaction(
                transactionIdentifier: id,
                productIdentifier: productIdentifier,
                purchaseDate: purchaseDate,
                store: store,
                isSandbox: isSandbox ?? false,
                storeTransactionID: storeTransactionID,
                displayName: displayName,
                price: price
            )
        }
    }
}
