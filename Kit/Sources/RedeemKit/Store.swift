/// The store a purchase was made in. Unknown stores are kept as their raw value, never rejected.
public struct Store: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let appStore = Store(rawValue: "app_store")
    public static let macAppStore = Store(rawValue: "mac_app_store")
    public static let playStore = Store(rawValue: "play_store")
    public static let stripe = Store(rawValue: "stripe")
    public static let paddle = Store(rawValue: "paddle")
    public static let promotional = Store(rawValue: "promotional")
    public static let amazon = Store(rawValue: "amazon")
    public static let rcBilling = Store(rawValue: "rc_billing")
    public static let external = Store(rawValue: "external")
    public static let testStore = Store(rawValue: "test_store")
    public static let galaxy = Store(rawValue: "galaxy")

    /// The stores this SDK version knows by name.
    public static let known: Set<Store> = [
        .appStore, .macAppStore, .playStore, .stripe, .paddle, .promotional,
        .amazon, .rcBilling, .external, .testStore, .galaxy,
    ]

    /// `false` for a store added to the backend after this SDK version.
    public var isKnown: Bool { Self.known.contains(self) }

    /// Whether the purchase was made on the web (Stripe, Paddle, Web Billing).
    public var isWeb: Bool { self == .stripe || self == .paddle || self == .rcBilling }

    public var description: String { rawValue }
}
