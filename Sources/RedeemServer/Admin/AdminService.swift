import Foundation
import RedeemCore
import RedeemStore

/// Admin operations shared by the admin API and the CLI, so both validate and write alike.
public struct AdminService: Sendable {
    let store: any AdminStore
    public let clock: any RedeemClock
    let keyCache: KeyCache?
    /// Who the writes are recorded under: `key:<id>`, `operator:<e-mail>` or `cli`; reads need none.
    public let actor: String?

    public init(store: any AdminStore, clock: any RedeemClock = SystemClock(), keyCache: KeyCache? = nil, actor: String? = nil) {
        self.store = store
        self.clock = clock
        self.keyCache = keyCache
        self.actor = actor
    }

    /// Records a purchase made elsewhere (the demo's sandbox checkout), audited as `purchase.create` with `detail`.
    public func recordPurchase(_ grant: PurchaseGrant, detail: String) async throws -> Purchase {
        let audit = try audit("purchase.create", "purchase", "", appID: grant.appID, detail: detail)
        return try await store.grant(grant, idempotency: nil, now: clock.now(), audit: audit).purchase
    }

    /// The same service, its writes recorded under `actor`.
    public func acting(as actor: String) -> AdminService { AdminService(store: store, clock: clock, keyCache: keyCache, actor: actor) }

    /// Creates an app with its three keys (public sandbox, public production, secret), shown once.
    /// `id` is for callers that need a stable one (the demo); apps otherwise get a generated ID.
    public func createApp(_ changes: AppChanges, id: String = App.generateID()) async throws -> CreatedApp {
        let now = clock.now()
        let app = try changes.makeApp(id: id, now: now)
        let keys = [APIKeyKind.publicSandbox, .publicProduction, .secret].map { GeneratedAPIKey(appID: app.id, kind: $0, now: now) }
        try await store.createApp(app, keys: keys, audit: try audit("app.create", "app", app.id, appID: app.id, detail: app.name))
        return CreatedApp(app: app, keys: keys)
    }

    public func updateApp(id: String, _ changes: AppChanges) async throws -> App {
        var app = try await store.app(id: id)
        try changes.apply(to: &app, now: clock.now())
        let updated = app
        try await store.updateApp(updated, audit: try audit("app.update", "app", id, appID: id))
        return app
    }

    public func createProduct(appID: String, _ input: ProductInput) async throws -> Product {
        guard let type = ProductType(rawValue: input.type) else {
            throw ValidationError(field: "type", reason: "must be one of subscription, consumable, non_consumable")
        }
        let product = Product(
            appID: appID, id: input.id, type: type, period: input.period, displayName: input.displayName.flatMap { $0.isEmpty ? nil : $0 },
            entitlements: Array(Set(input.entitlements ?? [])).sorted(), price: input.price?.price,
            subscriptionGroup: input.subscriptionGroup, groupLevel: input.groupLevel, storeIDs: input.storeIDs ?? StoreProductIDs(),
            createdAt: clock.now()
        )
        try product.validate()
        do {
            try await store.createProduct(product, audit: try audit("product.create", "product", product.id, appID: appID))
        } catch let error as StoreError where error.isConflict {
            throw StoreError.conflict("product '\(product.id)' already exists")
        }
        return product
    }

    public func updateProduct(appID: String, id: String, _ update: ProductUpdate) async throws -> Product {
        var product = try await store.product(appID: appID, id: id)
        if let displayName = update.displayName { product.displayName = displayName.isEmpty ? nil : displayName }
        if let entitlements = update.entitlements { product.entitlements = Array(Set(entitlements)).sorted() }
        if let price = update.price { product.price = price.price }
        if let group = update.subscriptionGroup { product.subscriptionGroup = group.isEmpty ? nil : group }
        if let level = update.groupLevel { product.groupLevel = level }
        if let storeIDs = update.storeIDs { product.storeIDs = storeIDs }
        try product.validate()
        let updated = product
        try await store.updateProduct(updated, audit: try audit("product.update", "product", id, appID: appID))
        return product
    }

    public func createEntitlement(appID: String, _ input: EntitlementInput) async throws -> Entitlement {
        try Identifier.validate(input.id, field: "id")
        try Self.validateDisplayName(input.displayName)
        let entitlement = Entitlement(
            appID: appID, id: input.id, displayName: input.displayName.flatMap { $0.isEmpty ? nil : $0 }, createdAt: clock.now()
        )
        do {
            try await store.createEntitlement(entitlement, audit: try audit("entitlement.create", "entitlement", entitlement.id, appID: appID))
        } catch let error as StoreError where error.isConflict {
            throw StoreError.conflict("entitlement '\(input.id)' already exists")
        }
        return entitlement
    }

    /// Renames an entitlement; nil leaves the name, an empty string clears it.
    public func updateEntitlement(appID: String, id: String, displayName: String?) async throws -> Entitlement {
        var entitlement = try await store.entitlement(appID: appID, id: id)
        try Self.validateDisplayName(displayName)
        if let displayName { entitlement.displayName = displayName.isEmpty ? nil : displayName }
        let updated = entitlement
        try await store.updateEntitlement(updated, audit: try audit("entitlement.update", "entitlement", id, appID: appID))
        return entitlement
    }

    static func validateDisplayName(_ name: String?) throws(ValidationError) {
        if let name, name.count > 200 { throw ValidationError(field: "display_name", reason: "must be at most 200 characters") }
    }

    /// A new key for an app (public or secret), or an instance admin key when `appID` is nil.
    /// `id`: the key's, when the request that makes it names it (a console form's `RequestID`); a repeat is then a
    /// conflict on it.
    public func createKey(appID: String?, kind: String, label: String? = nil, id: String? = nil) async throws -> CreatedKey {
        guard let kind = APIKeyKind(rawValue: kind), (kind == .admin) == (appID == nil) else {
            throw ValidationError(
                field: "kind", reason: appID == nil ? "instance keys are of kind admin" : "must be one of public_sandbox, public_production, secret"
            )
        }
        let key = GeneratedAPIKey(
            appID: appID, kind: kind, label: try APIKey.validLabel(label), id: id ?? Identifier.make(prefix: "key"), now: clock.now())
        try await store.createKey(key, audit: try audit("key.create", "key", key.record.id, appID: appID, detail: kind.rawValue))
        return CreatedKey(key: key.record, plaintext: key.plaintext)
    }

    /// The keys of an app (nil: every key), never their plaintext.
    public func keys(appID: String?) async throws -> [APIKey] { try await store.keys(appID: appID) }

    public func revokeKey(id: String, appID: String?) async throws {
        try await store.revokeKey(id: id, appID: appID, at: clock.now(), audit: try audit("key.revoke", "key", id, appID: appID))
        keyCache?.invalidateAll()
    }

    /// The audit entry a write commits with: who (`actor`) did `action` to which object. A write with no actor is
    /// refused, never recorded as nobody's.
    public func audit(_ action: String, _ objectType: String, _ objectID: String, appID: String?, detail: String? = nil) throws -> AuditEntry {
        guard let actor else { throw APIError(.internalError, "A write with no actor to record it under.") }
        return AuditEntry(at: clock.now(), actor: actor, action: action, objectType: objectType, objectID: objectID, appID: appID, detail: detail)
    }
}

/// An app as created: its settings and its keys in plaintext, the only time they are shown.
public struct CreatedApp: Encodable, Hashable, Sendable {
    public let app: App
    public let keys: [GeneratedAPIKey]

    public func plaintext(_ kind: APIKeyKind) -> String? { keys.first { $0.record.kind == kind }?.plaintext }

    public func encode(to encoder: any Encoder) throws {
        try app.encode(to: encoder)
        var container = encoder.container(keyedBy: DynamicCodingKey.self)
        var keys = container.nestedContainer(keyedBy: DynamicCodingKey.self, forKey: DynamicCodingKey("keys"))
        for key in self.keys { try keys.encode(key.plaintext, forKey: DynamicCodingKey(key.record.kind.rawValue)) }
    }
}

public struct CreatedKey: Encodable, Hashable, Sendable {
    public let key: APIKey
    public let plaintext: String

    public func encode(to encoder: any Encoder) throws {
        try key.encode(to: encoder)
        var container = encoder.container(keyedBy: DynamicCodingKey.self)
        try container.encode(plaintext, forKey: .init("key"))
    }
}

public struct ProductInput: Codable, Hashable, Sendable {
    public var id: String
    public var type: String
    public var period: String?
    public var displayName: String?
    public var entitlements: [String]?
    public var price: PriceInput?
    public var subscriptionGroup: String?
    public var groupLevel: Int?
    public var storeIDs: StoreProductIDs?

    public init(
        id: String, type: String, period: String? = nil, displayName: String? = nil, entitlements: [String]? = nil, price: PriceInput? = nil,
        subscriptionGroup: String? = nil, groupLevel: Int? = nil, storeIDs: StoreProductIDs? = nil
    ) {
        self.storeIDs = storeIDs
        self.subscriptionGroup = subscriptionGroup
        self.groupLevel = groupLevel
        self.id = id
        self.type = type
        self.period = period
        self.displayName = displayName
        self.entitlements = entitlements
        self.price = price
    }

    enum CodingKeys: String, CodingKey {
        case id, type, period, entitlements, price
        case displayName = "display_name"
        case subscriptionGroup = "subscription_group"
        case groupLevel = "group_level"
        case storeIDs = "store_identifiers"
    }
}

public struct ProductUpdate: Codable, Hashable, Sendable {
    public var displayName: String?
    public var entitlements: [String]?
    public var price: PriceInput?
    /// An empty string takes the product out of its group.
    public var subscriptionGroup: String?
    public var groupLevel: Int?
    /// Replaces the product's store identifiers (an empty object clears them).
    public var storeIDs: StoreProductIDs?

    public init(
        displayName: String? = nil, entitlements: [String]? = nil, price: PriceInput? = nil, subscriptionGroup: String? = nil,
        groupLevel: Int? = nil, storeIDs: StoreProductIDs? = nil
    ) {
        self.storeIDs = storeIDs
        self.displayName = displayName
        self.entitlements = entitlements
        self.price = price
        self.subscriptionGroup = subscriptionGroup
        self.groupLevel = groupLevel
    }

    enum CodingKeys: String, CodingKey {
        case entitlements, price
        case displayName = "display_name"
        case subscriptionGroup = "subscription_group"
        case groupLevel = "group_level"
        case storeIDs = "store_identifiers"
    }
}

public struct EntitlementInput: Codable, Hashable, Sendable {
    public var id: String
    public var displayName: String?

    public init(id: String, displayName: String? = nil) {
        self.id = id
        self.displayName = displayName
    }

    enum CodingKeys: String, CodingKey {
        case id
        case displayName = "display_name"
    }
}

extension AdminService {
    /// Records a purchase made elsewhere (the CLI twin of `POST /v1/purchases`) and issues its redemption link
    /// when the app's policy allows one.
    public func recordPurchase(
        appID: String, productID: String, email: String, appUserID: String?, sandbox: Bool, publicURL: URL, language: String? = nil
    ) async throws -> RecordedPurchase {
        guard Formats.isEmail(email) else { throw ValidationError(field: "email", reason: "must be an e-mail address") }
        if let language, !AcceptLanguage.isTag(language) {
            throw ValidationError(field: "language", reason: "must be a language tag such as de or pt-BR")
        }
        let buyer = try appUserID.map { try AppUserID(validating: $0) } ?? AppUserID.anonymous()
        let now = clock.now()
        var grant = PurchaseGrant(
            appID: appID, appUserID: buyer, productID: productID, store: .external, isSandbox: sandbox,
            purchaseDate: now, email: email)
        // One Redeem speaks (`pt-BR` is `pt`), else none: English, as `POST /v1/purchases` reads it.
        grant.language = BuyerLanguages.bundled.named(language)?.language
        let audit = try audit("purchase.create", "purchase", "", appID: appID, detail: "\(productID) for \(email)")
        let purchase = try await store.grant(grant, idempotency: nil, now: now, audit: audit).purchase
        let link = try await RedemptionLinkIssuer(store: store, publicURL: publicURL).issue(for: purchase, now: now)
        return RecordedPurchase(purchase: purchase, link: link)
    }
}

/// A purchase as the CLI prints it: the purchase's fields plus its redemption links (when the app's policy gives them).
public struct RecordedPurchase: Encodable, Sendable {
    public let purchase: Purchase
    public let redemptionURL: String?
    public let redemptionHTTPSURL: String?
    public let redemptionExpiresAt: Date?

    public init(purchase: Purchase, link: RedemptionLink?) {
        self.init(purchase: purchase, redemptionURL: link?.customSchemeURL, redemptionHTTPSURL: link?.httpsURL, redemptionExpiresAt: link?.expiresAt)
    }

    /// As a server answered it (`POST /v1/purchases`).
    public init(purchase: Purchase, redemptionURL: String?, redemptionHTTPSURL: String?, redemptionExpiresAt: Date?) {
        self.purchase = purchase
        self.redemptionURL = redemptionURL
        self.redemptionHTTPSURL = redemptionHTTPSURL
        self.redemptionExpiresAt = redemptionExpiresAt
    }

    enum Keys: String, CodingKey {
        case redemptionURL = "redemption_url"
        case redemptionHTTPSURL = "redemption_https_url"
        case redemptionExpiresAt = "redemption_expires_at"
    }

    public func encode(to encoder: any Encoder) throws {
        try purchase.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeIfPresent(redemptionURL, forKey: .redemptionURL)
        try container.encodeIfPresent(redemptionHTTPSURL, forKey: .redemptionHTTPSURL)
        try container.encodeIfPresent(redemptionExpiresAt, forKey: .redemptionExpiresAt)
    }
}
