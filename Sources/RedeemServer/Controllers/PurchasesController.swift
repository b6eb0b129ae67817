import Foundation
import HTTPTypes
import Hummingbird
import RedeemCore
import RedeemStore

/// The server API (secret key): record a purchase made anywhere, exactly once per idempotency key.
struct PurchasesController<Store: RedeemStore> {
    let store: Store
    let clock: any RedeemClock
    let links: RedemptionLinks
    let outbox: Outbox

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
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let input = try request.decodeJSON(GrantRequest.self, from: body, context: context)
        let now = clock.now()
        let grant = try PurchaseGrant(input, appID: appID, now: now)
        let fingerprint = try Self.fingerprint(body)
        let result = try await store.grant(grant, idempotency: Idempotency(key: key, fingerprint: fingerprint), now: now)
        let link = try await links.issue(for: result.purchase, now: now)
        if result.created, input.sendReceiptEmail == true { _ = try await outbox.queueReceipt(for: result.purchase) }
        let info = try await store.customerInfo(appID: appID, appUserID: grant.appUserID, now: now)
        return JSONResponse(GrantResponse(purchase: result.purchase, customerInfo: info, link: link), status: result.created ? .created : .ok)
    }

    /// SHA-256 of the body's JSON with sorted keys, so a retry that reorders keys or whitespace still matches.
    static func fingerprint(_ body: ByteBuffer) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView), options: [.fragmentsAllowed])
        let canonical = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        return SecretToken.hash(String(decoding: canonical, as: UTF8.self))
    }
}

/// The server API's purchase body.
struct GrantRequest: Decodable {
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

    enum CodingKeys: String, CodingKey {
        case store, price, email
        case sendReceiptEmail = "send_receipt_email"
        case appUserID = "app_user_id"
        case productID = "product_id"
        case isSandbox = "is_sandbox"
        case purchaseDate = "purchase_date"
        case expiresDate = "expires_date"
        case periodType = "period_type"
        case storeTransactionID = "store_transaction_id"
    }
}

/// A price as clients send it: `amount` as a number or a decimal string.
public struct PriceInput: Decodable, Sendable {
    let amountMicros: Int64
    let currency: String

    /// Parses a decimal amount such as `4.99` and an ISO-4217 code.
    public init(amount: String, currency: String) throws {
        let data = try JSONSerialization.data(withJSONObject: ["amount": amount, "currency": currency])
        self = try JSONDecoder().decode(PriceInput.self, from: data)
    }

    var price: Price { Price(amountMicros: amountMicros, currency: currency) }

    enum CodingKeys: String, CodingKey { case amount, currency }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text: String
        if let string = try? container.decode(String.self, forKey: .amount) {
            text = string
        } else {
            text = "\(try container.decode(Decimal.self, forKey: .amount))"
        }
        guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), decimal >= 0, decimal < 1_000_000_000 else {
            throw ValidationError(field: "price.amount", reason: "must be a non-negative decimal amount")
        }
        var micros = decimal * 1_000_000
        var rounded = Decimal()
        NSDecimalRound(&rounded, &micros, 0, .plain)
        self.amountMicros = NSDecimalNumber(decimal: rounded).int64Value
        self.currency = try container.decode(String.self, forKey: .currency)
        guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            throw ValidationError(field: "price.currency", reason: "must be an ISO-4217 code such as USD")
        }
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
        let purchaseDate = input.purchaseDate ?? now
        if let expires = input.expiresDate, expires <= purchaseDate {
            throw ValidationError(field: "expires_date", reason: "must be after purchase_date")
        }
        self.init(
            appID: appID, appUserID: appUserID, productID: input.productID, store: store, isSandbox: input.isSandbox ?? false,
            purchaseDate: purchaseDate, expiresDate: input.expiresDate, periodType: periodType,
            storeTransactionID: input.storeTransactionID,
            price: input.price.map { Price(amountMicros: $0.amountMicros, currency: $0.currency) }, email: input.email
        )
    }
}

extension HTTPField.Name {
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
}
