import Foundation

/// Settings a client sends to create or update an app. Nil leaves a field as it is; an empty string clears it.
public struct AppChanges: Codable, Hashable, Sendable {
    public var name: String?
    public var iconURL: String?
    public var appStoreURL: String?
    public var playStoreURL: String?
    public var iosTeamID: String?
    public var iosBundleID: String?
    public var androidPackageName: String?
    public var androidCertFingerprints: [String]?
    public var redemptionLinkPolicy: String?
    public var restoreBehavior: String?
    public var redemptionLinkLifetimeSeconds: Int?
    public var supportEmail: String?
    public var afterPurchase: String?
    public var afterPurchaseURL: String?
    public var offerCodeQuotaPerQuarter: Int?
    public var checkoutTax: String?
    public var allowPromotionCodes: Bool?
    /// Checkout branding: an https logo URL and `#rrggbb` colours; an empty string clears one.
    public var brandLogoURL: String?
    public var brandAccent: String?
    public var brandBackground: String?
    public var brandForeground: String?
    public var brandAccentDark: String?
    public var brandBackgroundDark: String?
    public var brandForegroundDark: String?
    /// The terms of use and the privacy policy: absolute https URLs; an empty string clears one.
    public var termsURL: String?
    public var privacyURL: String?
    /// Buyers tick a box agreeing to the terms before paying; needs `termsURL`.
    public var requireTermsConsent: Bool?
    /// E-mail buyers before a yearly renewal and before a long free trial ends.
    public var renewalReminders: Bool?
    /// A Stripe product tax code, `txcd_` and eight digits; an empty string clears it.
    public var stripeTaxCode: String?

    public init() {}

    enum CodingKeys: String, CodingKey {
        case name
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
    }

    /// A new app from these settings, with defaults for the rest.
    public func makeApp(id: String = App.generateID(), now: Date) throws(ValidationError) -> App {
        guard name != nil else { throw ValidationError(field: "name", reason: "is required") }
        var app = App(id: id, name: "", scheme: App.generateScheme(), createdAt: now, updatedAt: now)
        try apply(to: &app, now: now)
        return app
    }

    /// Validates every given field, then applies them all; `app` is untouched on error.
    public func apply(to app: inout App, now: Date) throws(ValidationError) {
        var next = app
        if let name {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...100).contains(trimmed.count) else { throw ValidationError(field: "name", reason: "must be 1–100 characters") }
            // It names the app's e-mails (subject, sender), where a line break cannot go.
            guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw ValidationError(field: "name", reason: "must be on one line, without control characters")
            }
            next.name = trimmed
        }
        next.iconURL = try Self.text(
            iconURL, current: app.iconURL, field: "icon_url", reason: "must be an absolute https URL, or /assets/<file> on this server",
            valid: { Formats.isHTTPSURL($0) || Formats.isAssetPath($0) })
        next.appStoreURL = try Self.url(appStoreURL, field: "app_store_url", current: app.appStoreURL)
        next.playStoreURL = try Self.url(playStoreURL, field: "play_store_url", current: app.playStoreURL)
        next.iosTeamID = try Self.text(
            iosTeamID, current: app.iosTeamID, field: "ios_team_id",
            reason: "must be 10 uppercase letters or digits", valid: Formats.isTeamID)
        next.iosBundleID = try Self.text(
            iosBundleID, current: app.iosBundleID, field: "ios_bundle_id",
            reason: "must be a reverse-DNS identifier such as com.example.app", valid: Formats.isBundleID)
        next.androidPackageName = try Self.text(
            androidPackageName, current: app.androidPackageName, field: "android_package_name",
            reason: "must be a Java package name such as com.example.app", valid: Formats.isPackageName)
        if let fingerprints = androidCertFingerprints {
            next.androidCertFingerprints = try fingerprints.map { fingerprint throws(ValidationError) in
                guard let normalized = Formats.normalizedFingerprint(fingerprint) else {
                    throw ValidationError(
                        field: "android_cert_fingerprints", reason: "'\(fingerprint)' is not a SHA-256 fingerprint (32 colon-separated hex bytes)")
                }
                return normalized
            }
        }
        if let policy = redemptionLinkPolicy {
            guard let value = RedemptionLinkPolicy(rawValue: policy) else {
                throw ValidationError(field: "redemption_link_policy", reason: "must be one of disabled, sandbox_only, enabled")
            }
            next.redemptionLinkPolicy = value
            next.linkPolicyChosenAt = now
        }
        if let behavior = restoreBehavior {
            guard let value = RestoreBehavior(rawValue: behavior) else {
                throw ValidationError(
                    field: "restore_behavior", reason: "must be one of transfer, transfer_if_no_active_subscription, keep_with_original")
            }
            next.restoreBehavior = value
        }
        if let lifetime = redemptionLinkLifetimeSeconds {
            guard (60...604_800).contains(lifetime) else {
                throw ValidationError(field: "redemption_link_lifetime_seconds", reason: "must be between 60 and 604800 (7 days)")
            }
            next.redemptionLinkLifetimeSeconds = lifetime
        }
        if let quota = offerCodeQuotaPerQuarter {
            guard (0...100_000_000).contains(quota) else {
                throw ValidationError(field: "offer_code_quota_per_quarter", reason: "must be between 0 and 100000000")
            }
            next.offerCodeQuotaPerQuarter = quota
        }
        if let tax = checkoutTax {
            guard let value = CheckoutTax(rawValue: tax) else {
                throw ValidationError(field: "checkout_tax", reason: "must be one of none, stripe_tax, managed_payments")
            }
            next.checkoutTax = value
        }
        if let allowPromotionCodes { next.allowPromotionCodes = allowPromotionCodes }
        next.stripeTaxCode = try Self.text(
            stripeTaxCode, current: app.stripeTaxCode, field: "stripe_tax_code",
            reason: "must be a Stripe product tax code: txcd_ and 8 digits", valid: Formats.isStripeTaxCode)
        if next.checkoutTax == .managedPayments, next.stripeTaxCode == nil {
            throw ValidationError(
                field: "stripe_tax_code", reason: "is required with managed payments: a product tax code Stripe lists as eligible for them")
        }
        next.supportEmail = try Self.text(
            supportEmail, current: app.supportEmail, field: "support_email",
            reason: "must be an e-mail address", valid: Formats.isEmail)
        if let afterPurchase {
            guard let value = AfterPurchase(rawValue: afterPurchase) else {
                throw ValidationError(field: "after_purchase", reason: "must be one of hosted, redirect, redirect_with_details")
            }
            next.afterPurchase = value
        }
        next.afterPurchaseURL = try Self.text(
            afterPurchaseURL, current: app.afterPurchaseURL, field: "after_purchase_url",
            reason: "must be an https URL (or http://localhost for sandbox)", valid: Formats.isRedirectURL)
        if next.afterPurchase != .hosted, next.afterPurchaseURL == nil {
            throw ValidationError(field: "after_purchase_url", reason: "is required when after_purchase redirects")
        }
        try applyBranding(to: &next)
        next.termsURL = try Self.url(termsURL, field: "terms_url", current: app.termsURL)
        next.privacyURL = try Self.url(privacyURL, field: "privacy_url", current: app.privacyURL)
        if let requireTermsConsent { next.requireTermsConsent = requireTermsConsent }
        if let renewalReminders { next.renewalReminders = renewalReminders }
        if next.requireTermsConsent, next.termsURL == nil {
            throw ValidationError(field: "require_terms_consent", reason: "needs terms_url: there are no terms to agree to")
        }
        next.updatedAt = now
        app = next
    }

    /// The logo (https only: it is loaded by buyers' browsers) and the colours, then the contrast rule on the result.
    func applyBranding(to app: inout App) throws(ValidationError) {
        app.brandLogoURL = try Self.text(
            brandLogoURL, current: app.brandLogoURL, field: "brand_logo_url", reason: "must be an absolute https URL",
            valid: Formats.isHTTPSURL)
        let colors: [(String?, WritableKeyPath<App, HexColor?>, String)] = [
            (brandAccent, \.brandAccent, "brand_accent"), (brandBackground, \.brandBackground, "brand_background"),
            (brandForeground, \.brandForeground, "brand_foreground"), (brandAccentDark, \.brandAccentDark, "brand_accent_dark"),
            (brandBackgroundDark, \.brandBackgroundDark, "brand_background_dark"),
            (brandForegroundDark, \.brandForegroundDark, "brand_foreground_dark"),
        ]
        for (value, path, field) in colors {
            guard let value else { continue }
            if value.isEmpty {
                app[keyPath: path] = nil
                continue
            }
            guard let color = HexColor(value) else {
                throw ValidationError(field: field, reason: "must be a hex colour such as #4338ca")
            }
            app[keyPath: path] = color
        }
        if let refusal = BrandingCheck.refusal(app.branding) { throw refusal }
    }

    static func url(_ value: String?, field: String, current: String?) throws(ValidationError) -> String? {
        try text(value, current: current, field: field, reason: "must be an absolute https URL", valid: Formats.isHTTPSURL)
    }

    static func text(
        _ value: String?, current: String?, field: String, reason: String, valid: (String) -> Bool
    ) throws(ValidationError) -> String? {
        guard let value else { return current }
        if value.isEmpty { return nil }
        guard valid(value) else { throw ValidationError(field: field, reason: reason) }
        return value
    }
}
