import Foundation
import RedeemCore
import RedeemWebhooks

enum Fixtures {
    static let anonymous = "$RCAnonymousID:0123456789abcdef0123456789abcdef"
    static let start = Date(timeIntervalSince1970: 1_767_225_600.123)
    static let now = Date(timeIntervalSince1970: 1_767_225_700)

    static let customer = Customer(
        id: "cus_1", appID: "app_1", originalAppUserID: anonymous, aliases: [anonymous, "user_42"],
        firstSeen: start, lastSeen: start
    )
    static let monthly = Product(
        appID: "app_1", id: "pro_monthly", type: .subscription, period: "P1M", displayName: "Pro",
        entitlements: ["pro"], createdAt: start
    )
    static let lifetime = Product(
        appID: "app_1", id: "lifetime", type: .nonConsumable, period: nil, displayName: nil,
        entitlements: ["pro", "supporter"], createdAt: start
    )
    static let subscription = Purchase(
        id: "pur_1", appID: "app_1", customerID: "cus_1", productID: "pro_monthly", store: .rcBilling, isSandbox: false,
        purchaseDate: start, originalPurchaseDate: start, expiresDate: Date(timeIntervalSince1970: 1_769_904_000),
        storeTransactionID: "pi_123", price: Price(amountMicros: 9_990_000, currency: "USD"), email: "a@example.com",
        createdAt: start
    )
    static let oneTime = Purchase(
        id: "pur_2", appID: "app_1", customerID: "cus_1", productID: "lifetime", store: .stripe, isSandbox: true,
        purchaseDate: start, originalPurchaseDate: start, expiresDate: nil,
        storeTransactionID: "pi_456", price: Price(amountMicros: 49_000_000, currency: "EUR"), email: nil,
        createdAt: start
    )
}

/// Any JSON value, for comparing bodies structurally.
enum JSON: Decodable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let v = try? c.decode(Bool.self) {
            self = .bool(v)
        } else if let v = try? c.decode(Double.self) {
            self = .number(v)
        } else if let v = try? c.decode(String.self) {
            self = .string(v)
        } else if let v = try? c.decode([JSON].self) {
            self = .array(v)
        } else {
            self = .object(try c.decode([String: JSON].self))
        }
    }

    init(_ bytes: [UInt8]) throws { self = try JSONDecoder().decode(JSON.self, from: Data(bytes)) }
    init(_ text: String) throws { try self.init(Array(text.utf8)) }

    subscript(key: String) -> JSON? {
        if case .object(let o) = self { o[key] } else { nil }
    }
}
