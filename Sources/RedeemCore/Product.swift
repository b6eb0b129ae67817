import Foundation

public enum ProductType: String, Codable, CaseIterable, Sendable {
    case subscription
    case consumable
    case nonConsumable = "non_consumable"
}

/// Something an app sells, with the entitlements it unlocks.
public struct Product: Codable, Hashable, Sendable {
    public var appID: String
    public var id: String
    public var type: ProductType
    /// Set for subscriptions only.
    public var period: String?
    public var displayName: String?
    public var entitlements: [String]
    /// What checkout charges; nil for products sold only elsewhere.
    public var price: Price?
    /// Subscriptions only: the group whose levels rank its products; nil means a group of its own.
    public var subscriptionGroup: String?
    /// Subscriptions only: the rank within the group, 1 the highest (as on the App Store).
    public var groupLevel: Int?
    /// The product's identifiers in the App Store and Google Play, for offerings that the stores' SDKs read.
    public var storeIDs: StoreProductIDs = StoreProductIDs()
    public var createdAt: Date

    public init(
        appID: String, id: String, type: ProductType, period: String?, displayName: String?,
        entitlements: [String], price: Price? = nil, subscriptionGroup: String? = nil, groupLevel: Int? = nil,
        storeIDs: StoreProductIDs = StoreProductIDs(), createdAt: Date
    ) {
        self.appID = appID
        self.id = id
        self.type = type
        self.period = period
        self.displayName = displayName
        self.entitlements = entitlements
        self.price = price
        self.subscriptionGroup = subscriptionGroup
        self.groupLevel = groupLevel
        self.storeIDs = storeIDs
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, type, period, entitlements, price
        case appID = "app_id"
        case displayName = "display_name"
        case subscriptionGroup = "subscription_group"
        case groupLevel = "group_level"
        case storeIDs = "store_identifiers"
        case createdAt = "created_at"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appID = try c.decode(String.self, forKey: .appID)
        id = try c.decode(String.self, forKey: .id)
        type = try c.decode(ProductType.self, forKey: .type)
        period = try c.decodeIfPresent(String.self, forKey: .period)
        displayName = try c.decodeIfPresent(String.self, forKey: .displayName)
        entitlements = try c.decode([String].self, forKey: .entitlements)
        price = try c.decodeIfPresent(Price.self, forKey: .price)
        subscriptionGroup = try c.decodeIfPresent(String.self, forKey: .subscriptionGroup)
        groupLevel = try c.decodeIfPresent(Int.self, forKey: .groupLevel)
        storeIDs = try c.decodeIfPresent(StoreProductIDs.self, forKey: .storeIDs) ?? StoreProductIDs()
        createdAt = try c.decode(Date.self, forKey: .createdAt)
    }

    /// `store_identifiers` only when the product has some, so products sold on the web alone read as before.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(appID, forKey: .appID)
        try c.encode(id, forKey: .id)
        try c.encode(type, forKey: .type)
        try c.encodeIfPresent(period, forKey: .period)
        try c.encodeIfPresent(displayName, forKey: .displayName)
        try c.encode(entitlements, forKey: .entitlements)
        try c.encodeIfPresent(price, forKey: .price)
        try c.encodeIfPresent(subscriptionGroup, forKey: .subscriptionGroup)
        try c.encodeIfPresent(groupLevel, forKey: .groupLevel)
        if !storeIDs.isEmpty { try c.encode(storeIDs, forKey: .storeIDs) }
        try c.encode(createdAt, forKey: .createdAt)
    }

    /// The subscription group offers and upgrades are judged in: the named group, else the product alone.
    public var groupKey: String { subscriptionGroup ?? "product:" + id }

    /// Checks the identifier and the type/period pairing.
    public func validate() throws(ValidationError) {
        try Identifier.validate(id, field: "id")
        guard !PromotionalGrant.isPromotional(productID: id) else {
            throw ValidationError(field: "id", reason: "'\(PromotionalGrant.productPrefix)' is reserved for granted entitlements")
        }
        switch (type, period) {
        case (.subscription, nil):
            throw ValidationError(field: "period", reason: "a subscription needs a period such as P1M")
        case (.subscription, let period?):
            _ = try ISO8601Period(parsing: period)
        case (_, .some):
            throw ValidationError(field: "period", reason: "only subscriptions have a period")
        case (_, nil):
            break
        }
        if let displayName, displayName.count > 200 {
            throw ValidationError(field: "display_name", reason: "must be at most 200 characters")
        }
        for entitlement in entitlements { try Identifier.validate(entitlement, field: "entitlements") }
        // What checkout charges must be chargeable: refused here, not when a buyer opens the link.
        try price?.validateChargeable(field: "price")
        try storeIDs.validate(for: type)
        if subscriptionGroup != nil || groupLevel != nil {
            guard type == .subscription else {
                throw ValidationError(field: "subscription_group", reason: "only subscriptions belong to a subscription group")
            }
            if let subscriptionGroup { try Identifier.validate(subscriptionGroup, field: "subscription_group") }
            if let groupLevel, !(1...100).contains(groupLevel) {
                throw ValidationError(field: "group_level", reason: "must be between 1 (highest) and 100")
            }
        }
    }
}

/// Access that products unlock, e.g. `pro`.
public struct Entitlement: Codable, Hashable, Sendable {
    public var appID: String
    public var id: String
    public var displayName: String?
    public var createdAt: Date

    public init(appID: String, id: String, displayName: String?, createdAt: Date) {
        self.appID = appID
        self.id = id
        self.displayName = displayName
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id
        case appID = "app_id"
        case displayName = "display_name"
        case createdAt = "created_at"
    }
}

extension Identifier {
    /// Product and entitlement identifiers: 1–100 of `A–Z a–z 0–9 . _ -`.
    public static func validate(_ value: String, field: String) throws(ValidationError) {
        guard (1...100).contains(value.count),
            value.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) })
        else {
            throw ValidationError(field: field, reason: "must be 1–100 characters of letters, digits, '.', '_' or '-'")
        }
    }
}
