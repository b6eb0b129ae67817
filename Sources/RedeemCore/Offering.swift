import Foundation

/// A set of packages an app's paywall shows (RevenueCat's offering): one of an app's offerings is current.
public struct Offering: Codable, Hashable, Sendable {
    public var appID: String
    /// `default`, `black_friday`: what apps ask for by name.
    public var id: String
    public var description: String
    /// Free-form JSON the paywall reads, kept as its text.
    public var metadataJSON: String
    public var isCurrent: Bool
    public var packages: [Package]
    public var createdAt: Date

    public init(
        appID: String, id: String, description: String, metadataJSON: String = "{}", isCurrent: Bool = false, packages: [Package],
        createdAt: Date
    ) {
        self.appID = appID
        self.id = id
        self.description = description
        self.metadataJSON = metadataJSON
        self.isCurrent = isCurrent
        self.packages = packages
        self.createdAt = createdAt
    }

    /// A package: an identifier the app knows (`$rc_monthly`, or its own) for one product.
    public struct Package: Codable, Hashable, Sendable {
        public var id: String
        public var productID: String

        public init(id: String, productID: String) {
            self.id = id
            self.productID = productID
        }

        enum CodingKeys: String, CodingKey {
            case id = "identifier"
            case productID = "product_id"
        }
    }

    /// RevenueCat's standard package identifiers (its SDKs give them types); any other is a custom package.
    public static let standardPackages = [
        "$rc_weekly", "$rc_monthly", "$rc_two_month", "$rc_three_month", "$rc_six_month", "$rc_annual", "$rc_lifetime",
    ]

    /// Checks identifiers, the description and the metadata (a JSON object); `products` are the app's.
    public func validate(products: [Product]) throws(ValidationError) {
        try Identifier.validate(id, field: "identifier")
        guard description.count <= 500 else { throw ValidationError(field: "description", reason: "must be at most 500 characters") }
        guard metadataJSON.utf8.count <= 16 * 1024,
            (try? JSONSerialization.jsonObject(with: Data(metadataJSON.utf8))) is [String: Any]
        else { throw ValidationError(field: "metadata", reason: "must be a JSON object of at most 16 KB") }
        guard packages.count <= 50 else { throw ValidationError(field: "packages", reason: "at most 50 packages") }
        var seen = Set<String>()
        for package in packages {
            guard (1...100).contains(package.id.count), !package.id.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw ValidationError(field: "packages.identifier", reason: "must be 1–100 characters without spaces")
            }
            guard package.id.hasPrefix("$") == false || Self.standardPackages.contains(package.id) else {
                throw ValidationError(
                    field: "packages.identifier",
                    reason: "'\(package.id)': identifiers starting with $ are RevenueCat's: \(Self.standardPackages.joined(separator: ", "))")
            }
            guard seen.insert(package.id).inserted else {
                throw ValidationError(field: "packages.identifier", reason: "'\(package.id)' appears twice")
            }
            guard products.contains(where: { $0.id == package.productID }) else {
                throw ValidationError(field: "packages.product_id", reason: "no product '\(package.productID)'")
            }
        }
    }

    enum CodingKeys: String, CodingKey {
        case id = "identifier"
        case description, packages, metadata
        case appID = "app_id"
        case isCurrent = "is_current"
        case createdAt = "created_at"
    }

    /// `metadata` travels as the JSON object it is, not as its text.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appID = try c.decode(String.self, forKey: .appID)
        id = try c.decode(String.self, forKey: .id)
        description = try c.decode(String.self, forKey: .description)
        let metadata = try c.decodeIfPresent(JSONValue.self, forKey: .metadata) ?? .object([:])
        metadataJSON = String(decoding: try JSONEncoder().encode(metadata), as: UTF8.self)
        isCurrent = try c.decode(Bool.self, forKey: .isCurrent)
        packages = try c.decode([Package].self, forKey: .packages)
        createdAt = try c.decode(Date.self, forKey: .createdAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(appID, forKey: .appID)
        try c.encode(id, forKey: .id)
        try c.encode(description, forKey: .description)
        try c.encode(try JSONDecoder().decode(JSONValue.self, from: Data(metadataJSON.utf8)), forKey: .metadata)
        try c.encode(isCurrent, forKey: .isCurrent)
        try c.encode(packages, forKey: .packages)
        try c.encode(createdAt, forKey: .createdAt)
    }
}

/// The stores an SDK asks for, from its `X-Platform` header: each names its products by its own identifiers.
public enum StorePlatform: String, Sendable {
    case appStore = "app_store"
    case playStore = "play_store"
    /// The web, and clients that send no platform: Redeem's own product IDs, bought through its purchase links.
    case web

    public init(xPlatform: String?) {
        switch xPlatform?.lowercased() {
        case "ios", "macos", "tvos", "watchos", "visionos", "uikitformac": self = .appStore
        case "android": self = .playStore
        default: self = .web
        }
    }
}

/// A product's identifiers in the stores, so one offering serves the app's store purchases and the web's.
public struct StoreProductIDs: Codable, Hashable, Sendable {
    public var appStore: String?
    public var playStore: String?
    /// Google Play subscriptions are a product and a base plan.
    public var playBasePlan: String?

    public init(appStore: String? = nil, playStore: String? = nil, playBasePlan: String? = nil) {
        self.appStore = appStore
        self.playStore = playStore
        self.playBasePlan = playBasePlan
    }

    public var isEmpty: Bool { appStore == nil && playStore == nil }

    /// Store identifiers are 1–150 characters without spaces; a Play subscription needs its base plan (without one,
    /// Google's SDK takes the product for a one-time one and matches nothing), and only subscriptions have one.
    public func validate(for type: ProductType) throws(ValidationError) {
        for (field, value) in [
            ("store_identifiers.app_store", appStore), ("store_identifiers.play_store", playStore),
            ("store_identifiers.play_base_plan", playBasePlan),
        ] {
            if let value, !(1...150).contains(value.count) || value.contains(where: { $0.isWhitespace || $0.isNewline || $0 == ":" }) {
                throw ValidationError(field: field, reason: "must be 1–150 characters without spaces or ':'")
            }
        }
        if type == .subscription, playStore != nil, playBasePlan == nil {
            throw ValidationError(field: "store_identifiers.play_base_plan", reason: "a Google Play subscription needs its base plan")
        }
        if playBasePlan != nil, type != .subscription || playStore == nil {
            throw ValidationError(field: "store_identifiers.play_base_plan", reason: "only a Google Play subscription has a base plan")
        }
    }

    enum CodingKeys: String, CodingKey {
        case appStore = "app_store"
        case playStore = "play_store"
        case playBasePlan = "play_base_plan"
    }
}
