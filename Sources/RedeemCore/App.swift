import Foundation

/// Whether redemption links are issued for an app's purchases.
public enum RedemptionLinkPolicy: String, Codable, CaseIterable, Sendable {
    case disabled
    case sandboxOnly = "sandbox_only"
    case enabled

    public func allowsLinks(sandbox: Bool) -> Bool {
        switch self {
        case .disabled: false
        case .sandboxOnly: sandbox
        case .enabled: true
        }
    }
}

/// What happens when a purchase owned by one identified user is claimed by another.
public enum RestoreBehavior: String, Codable, CaseIterable, Sendable {
    case transfer
    case transferIfNoActiveSubscription = "transfer_if_no_active_subscription"
    case keepWithOriginal = "keep_with_original"
}

/// Where the buyer goes after a hosted checkout.
/// How Stripe Checkout handles tax for the app's sales.
public enum CheckoutTax: String, Codable, CaseIterable, Sendable {
    /// Prices are charged as they are.
    case none
    /// Stripe Tax computes it (`automatic_tax`), and the buyer gives a billing address.
    case stripeTax = "stripe_tax"
    /// Stripe Managed Payments: Stripe sells as the merchant of record and handles the tax (`managed_payments`); needs
    /// the app's product tax code.
    case managedPayments = "managed_payments"
}

public enum AfterPurchase: String, Codable, CaseIterable, Sendable {
    /// Redeem's success page: receipt, redemption step, store badges.
    case hosted
    /// The app's URL with `redeem_url` and `app_user_id` appended (RevenueCat style).
    case redirect
    /// The app's URL with `app_user_id`, `email`, the Stripe subscription or session ID and custom parameters (Superwall style).
    case redirectWithDetails = "redirect_with_details"
}

/// One mobile app and its settings.
public struct App: Codable, Hashable, Sendable {
    public var id: String
    public var name: String
    public var iconURL: String?
    public var appStoreURL: String?
    public var playStoreURL: String?
    public var scheme: String
    public var iosTeamID: String?
    public var iosBundleID: String?
    public var androidPackageName: String?
    public var androidCertFingerprints: [String]
    public var redemptionLinkPolicy: RedemptionLinkPolicy
    public var restoreBehavior: RestoreBehavior
    public var redemptionLinkLifetimeSeconds: Int
    public var supportEmail: String?
    public var afterPurchase: AfterPurchase
    /// Where `redirect` and `redirectWithDetails` send the buyer: https, or http://localhost for sandbox tests.
    public var afterPurchaseURL: String?
    /// Offer-code redemptions allowed per calendar quarter (UTC), as App Store Connect's 1,000,000.
    public var offerCodeQuotaPerQuarter: Int
    /// Tax at Stripe Checkout.
    public var checkoutTax: CheckoutTax
    /// Stripe Checkout shows its "Add promotion code" field (Stripe promotion codes); a link may turn it on too.
    public var allowPromotionCodes: Bool
    /// Checkout branding (`branding`): a logo (https) and colours for light and dark; nil keeps the pages' own.
    public var brandLogoURL: String?
    public var brandAccent: HexColor?
    public var brandBackground: HexColor?
    public var brandForeground: HexColor?
    public var brandAccentDark: HexColor?
    public var brandBackgroundDark: HexColor?
    public var brandForegroundDark: HexColor?
    /// When an operator last chose the redemption link policy (a first step); nil while it is the default, unchosen.
    public var linkPolicyChosenAt: Date? = nil
    /// The app's terms of use and privacy policy (https), linked from its buyer pages, its e-mails and Stripe Checkout.
    public var termsURL: String? = nil
    public var privacyURL: String? = nil
    /// Buyers tick a box agreeing to the terms before they pay or claim (affirmative consent, as California's
    /// automatic-renewal law asks); only with `termsURL`.
    public var requireTermsConsent = false
    /// E-mail buyers before a yearly subscription renews and before a long free trial ends (`RenewalReminder`).
    public var renewalReminders = false
    /// The Stripe product tax code (`txcd_…`) of what the app sells, given to Stripe Tax and Managed Payments.
    public var stripeTaxCode: String? = nil
    public var createdAt: Date
    public var updatedAt: Date

    public static let defaultLinkLifetimeSeconds = 3600

    public init(
        id: String, name: String, iconURL: String? = nil, appStoreURL: String? = nil, playStoreURL: String? = nil,
        scheme: String, iosTeamID: String? = nil, iosBundleID: String? = nil, androidPackageName: String? = nil,
        androidCertFingerprints: [String] = [], redemptionLinkPolicy: RedemptionLinkPolicy = .enabled,
        restoreBehavior: RestoreBehavior = .transfer, redemptionLinkLifetimeSeconds: Int = App.defaultLinkLifetimeSeconds,
        supportEmail: String? = nil, afterPurchase: AfterPurchase = .hosted, afterPurchaseURL: String? = nil,
        offerCodeQuotaPerQuarter: Int = OfferQuota.defaultPerQuarter, checkoutTax: CheckoutTax = .none, allowPromotionCodes: Bool = false,
        branding: CheckoutBranding = CheckoutBranding(), createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.name = name
        self.iconURL = iconURL
        self.appStoreURL = appStoreURL
        self.playStoreURL = playStoreURL
        self.scheme = scheme
        self.iosTeamID = iosTeamID
        self.iosBundleID = iosBundleID
        self.androidPackageName = androidPackageName
        self.androidCertFingerprints = androidCertFingerprints
        self.redemptionLinkPolicy = redemptionLinkPolicy
        self.restoreBehavior = restoreBehavior
        self.redemptionLinkLifetimeSeconds = redemptionLinkLifetimeSeconds
        self.supportEmail = supportEmail
        self.afterPurchase = afterPurchase
        self.afterPurchaseURL = afterPurchaseURL
        self.offerCodeQuotaPerQuarter = offerCodeQuotaPerQuarter
        self.checkoutTax = checkoutTax
        self.allowPromotionCodes = allowPromotionCodes
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.branding = branding
    }

    enum CodingKeys: String, CodingKey {
        case id, name, scheme
        case iconURL = "icon_url"
        case appStoreURL = "app_store_url"
        case playStoreURL = "play_store_url"
        case iosTeamID = "ios_team_id"
        case iosBundleID = "ios_bundle_id"
        case androidPackageName = "android_package_name"
        case androidCertFingerprints = "android_cert_fingerprints"
        case redemptionLinkPolicy = "redemption_link_policy"
        case restoreBehavior = "restore_behavior"
        case redemptionLinkLifetimeSeconds = "redemption_link_lifetime_seconds"
        case supportEmail = "support_email"
        case afterPurchase = "after_purchase"
        case afterPurchaseURL = "after_purchase_url"
        case offerCodeQuotaPerQuarter = "offer_code_quota_per_quarter"
        case checkoutTax = "checkout_tax"
        case allowPromotionCodes = "allow_promotion_codes"
        case brandLogoURL = "brand_logo_url"
        case brandAccent = "brand_accent"
        case brandBackground = "brand_background"
        case brandForeground = "brand_foreground"
        case brandAccentDark = "brand_accent_dark"
        case brandBackgroundDark = "brand_background_dark"
        case brandForegroundDark = "brand_foreground_dark"
        case termsURL = "terms_url"
        case privacyURL = "privacy_url"
        case requireTermsConsent = "require_terms_consent"
        case renewalReminders = "renewal_reminders"
        case stripeTaxCode = "stripe_tax_code"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    /// Whether a buyer may pay or claim: the terms' box ticked, or the app does not ask for it. The sandbox checkout
    /// and the offer page's claim and payment all decide here.
    public func consentGiven(ticked: Bool) -> Bool { ticked || !requireTermsConsent }

    /// The branding columns as one value.
    public var branding: CheckoutBranding {
        get {
            CheckoutBranding(
                logoURL: brandLogoURL, light: BrandPalette(accent: brandAccent, background: brandBackground, foreground: brandForeground),
                dark: BrandPalette(accent: brandAccentDark, background: brandBackgroundDark, foreground: brandForegroundDark))
        }
        set {
            brandLogoURL = newValue.logoURL
            (brandAccent, brandBackground, brandForeground) = (newValue.light.accent, newValue.light.background, newValue.light.foreground)
            (brandAccentDark, brandBackgroundDark, brandForegroundDark) = (newValue.dark.accent, newValue.dark.background, newValue.dark.foreground)
        }
    }

    /// A new custom URL scheme, `rdm-` plus 10 hex digits.
    public static func generateScheme() -> String {
        var rng = SystemRandomNumberGenerator()
        let value = (rng.next() as UInt64) & 0xff_ffff_ffff
        let hex = String(value, radix: 16)
        return "rdm-" + String(repeating: "0", count: 10 - hex.count) + hex
    }

    /// A new app ID, `app_` plus 28 hex digits.
    public static func generateID() -> String { Identifier.make(prefix: "app") }
}
