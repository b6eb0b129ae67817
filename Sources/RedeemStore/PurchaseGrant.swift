import Foundation
import RedeemCore

/// A purchase to record, from the server API or a checkout.
public struct PurchaseGrant: Codable, Equatable, Sendable {
    public var appID: String
    public var appUserID: AppUserID
    public var productID: String
    public var store: Store
    public var isSandbox: Bool
    public var purchaseDate: Date
    /// For subscriptions: defaults to one period after `purchaseDate`.
    public var expiresDate: Date?
    public var periodType: PeriodType
    public var storeTransactionID: String?
    public var price: Price?
    public var email: String?
    public var customParams: [String: String]
    /// The checkout that produced it (a Stripe Checkout Session ID, a sandbox checkout ID), to find it from a success page.
    public var checkoutReference: String?
    /// The offer code that made it, if any.
    public var offer: PurchaseOffer?
    /// The buyer's language at checkout (`Purchase.language`).
    public var language: String?
    /// The buyer's consent to the app's terms at checkout, where the app asked for it.
    public var termsConsent: TermsConsent? = nil

    public init(
        appID: String, appUserID: AppUserID, productID: String, store: Store = .external, isSandbox: Bool = false,
        purchaseDate: Date, expiresDate: Date? = nil, periodType: PeriodType = .normal, storeTransactionID: String? = nil,
        price: Price? = nil, email: String? = nil, customParams: [String: String] = [:]
    ) {
        self.appID = appID
        self.appUserID = appUserID
        self.productID = productID
        self.store = store
        self.isSandbox = isSandbox
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.periodType = periodType
        self.storeTransactionID = storeTransactionID
        self.price = price
        self.email = email
        self.customParams = customParams
    }
}

/// A client's idempotency key and a fingerprint of the request it came with.
public struct Idempotency: Sendable {
    public let key: String
    public let fingerprint: String

    public init(key: String, fingerprint: String) {
        self.key = key
        self.fingerprint = fingerprint
    }
}

public struct GrantResult: Sendable {
    public let purchase: Purchase
    /// False when an earlier request with the same idempotency key already recorded it.
    public let created: Bool
}

extension AppUserID: Codable {
    public init(from decoder: any Decoder) throws {
        let string = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(validating: string) } catch { throw error }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
