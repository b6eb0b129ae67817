import Foundation
import RedeemCore
import RedeemStore

/// The server API's purchase body.
struct GrantRequest: Decodable, Hashable, Sendable {
    var appUserID: String
    var productID: String
    var store: String?
    var isSandbox: Bool?
    var purchaseDate: Date?
    var expiresDate: Date?
    var periodType: String?
    var storeTransactionID: String?
    var price: PriceInput?
    var email: String?
    /// E-mail the receipt, with a redemption link, to `email`.
    var sendReceiptEmail: Bool?
    /// The buyer's language tag, which the purchase's e-mails speak when Redeem does.
    var language: String?

    enum CodingKeys: String, CodingKey {
        case store, price, email, language
        case sendReceiptEmail = "send_receipt_email"
        case appUserID = "app_user_id"
        case productID = "product_id"
        case isSandbox = "is_sandbox"
        case purchaseDate = "purchase_date"
        case expiresDate = "expires_date"
        case periodType = "period_type"
        case storeTransactionID = "store_transaction_id"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appUserID = try c.decode(String.self, forKey: .appUserID)
        productID = try c.decode(String.self, forKey: .productID)
        store = try c.decodeIfPresent(String.self, forKey: .store)
        isSandbox = try c.decodeIfPresent(Bool.self, forKey: .isSandbox)
        purchaseDate = try c.decodeISODateIfPresent(forKey: .purchaseDate)
        expiresDate = try c.decodeISODateIfPresent(forKey: .expiresDate)
        periodType = try c.decodeIfPresent(String.self, forKey: .periodType)
        storeTransactionID = try c.decodeIfPresent(String.self, forKey: .storeTransactionID)
        price = try c.decodeIfPresent(PriceInput.self, forKey: .price)
        email = try c.decodeIfPresent(String.self, forKey: .email)
        sendReceiptEmail = try c.decodeIfPresent(Bool.self, forKey: .sendReceiptEmail)
        language = try c.decodeIfPresent(String.self, forKey: .language)
    }
}

extension PurchaseGrant {
    init(_ input: GrantRequest, appID: String, now: Date) throws {
        let appUserID = try AppUserID.parse(input.appUserID)
        try Identifier.validate(input.productID, field: "product_id")
        let store = Store(rawValue: input.store ?? Store.external.rawValue)
        guard Store.known.contains(store) else {
            throw ValidationError(field: "store", reason: "must be one of \(Store.known.map(\.rawValue).joined(separator: ", "))")
        }
        var periodType = PeriodType.normal
        if let raw = input.periodType {
            guard let value = PeriodType(rawValue: raw) else {
                throw ValidationError(field: "period_type", reason: "must be one of normal, intro, trial, prepaid")
            }
            periodType = value
        }
        if let email = input.email, !Formats.isEmail(email) {
            throw ValidationError(field: "email", reason: "must be an e-mail address")
        }
        if let transaction = input.storeTransactionID, !(1...255).contains(transaction.count) {
            throw ValidationError(field: "store_transaction_id", reason: "must be 1–255 characters")
        }
        if let tag = input.language, !AcceptLanguage.isTag(tag) {
            throw ValidationError(field: "language", reason: "must be a language tag such as de or pt-BR")
        }
        let purchaseDate = input.purchaseDate ?? now
        if let expires = input.expiresDate, expires <= purchaseDate {
            throw ValidationError(field: "expires_date", reason: "must be after purchase_date")
        }
        self.init(
            appID: appID, appUserID: appUserID, productID: input.productID, store: store, isSandbox: input.isSandbox ?? false,
            purchaseDate: purchaseDate, expiresDate: input.expiresDate, periodType: periodType,
            storeTransactionID: input.storeTransactionID,
            price: input.price?.price, email: input.email
        )
        // One Redeem speaks (`pt-BR` is `pt`), else none: English.
        language = BuyerLanguages.bundled.named(input.language)?.language
    }
}
