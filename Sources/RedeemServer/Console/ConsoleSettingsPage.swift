import Foundation
import Hummingbird
import RedeemCore

/// The settings page's values: the stored settings (or what was typed, when refused), the choices in words, the setup
/// checks and the service files.
extension ConsoleSettingsController {
    func page(
        app: App, form: [String: String]?, error: String?, status: HTTPResponse.Status, request: Request, context: ConsoleContext
    ) async throws -> Response {
        // On a refused save the form shows what was typed; otherwise the stored settings.
        func value(_ field: String, _ stored: String?) -> String { form?[field] ?? stored ?? "" }
        let fields: [String: String] = [
            "name": value("name", app.name), "icon_url": value("icon_url", app.iconURL), "app_store_url": value("app_store_url", app.appStoreURL),
            "play_store_url": value("play_store_url", app.playStoreURL), "support_email": value("support_email", app.supportEmail),
            "terms_url": value("terms_url", app.termsURL), "privacy_url": value("privacy_url", app.privacyURL),
            "stripe_tax_code": value("stripe_tax_code", app.stripeTaxCode),
            "ios_team_id": value("ios_team_id", app.iosTeamID), "ios_bundle_id": value("ios_bundle_id", app.iosBundleID),
            "android_package_name": value("android_package_name", app.androidPackageName),
            "android_cert_fingerprints": form?["android_cert_fingerprints"] ?? app.androidCertFingerprints.joined(separator: "\n"),
            "after_purchase_url": value("after_purchase_url", app.afterPurchaseURL),
            "redemption_link_lifetime_minutes": form?["redemption_link_lifetime_minutes"] ?? String(app.redemptionLinkLifetimeSeconds / 60),
            "brand_logo_url": value("brand_logo_url", app.brandLogoURL), "brand_accent": value("brand_accent", app.brandAccent?.hex),
            "brand_background": value("brand_background", app.brandBackground?.hex),
            "brand_foreground": value("brand_foreground", app.brandForeground?.hex),
            "brand_accent_dark": value("brand_accent_dark", app.brandAccentDark?.hex),
            "brand_background_dark": value("brand_background_dark", app.brandBackgroundDark?.hex),
            "brand_foreground_dark": value("brand_foreground_dark", app.brandForegroundDark?.hex),
        ]
        let base = publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let settings = SettingsPage(
            scheme: app.scheme, warnings: AppSetupCheck.warnings(app, paidCheckout: paidCheckout),
            brandWarnings: BrandingCheck.warnings(app.branding),
            policies: Self.options(
                RedemptionLinkPolicy.allCases.map(\.rawValue), form?["redemption_link_policy"] ?? app.redemptionLinkPolicy.rawValue),
            restores: Self.options(RestoreBehavior.allCases.map(\.rawValue), form?["restore_behavior"] ?? app.restoreBehavior.rawValue),
            afterPurchases: Self.options(AfterPurchase.allCases.map(\.rawValue), form?["after_purchase"] ?? app.afterPurchase.rawValue),
            taxes: Self.options(CheckoutTax.allCases.map(\.rawValue), form?["checkout_tax"] ?? app.checkoutTax.rawValue),
            promotionCodes: form.map { $0["allow_promotion_codes"] == "yes" } ?? app.allowPromotionCodes,
            termsConsent: form.map { $0["require_terms_consent"] == "yes" } ?? app.requireTermsConsent,
            renewalReminders: form.map { $0["renewal_reminders"] == "yes" } ?? app.renewalReminders,
            wellKnown: [
                SettingsPage.WellKnownFile(
                    name: "Apple (universal links)", url: base + "/.well-known/apple-app-site-association",
                    on: app.iosTeamID != nil && app.iosBundleID != nil),
                SettingsPage.WellKnownFile(
                    name: "Android (app links)", url: base + "/.well-known/assetlinks.json",
                    on: app.androidPackageName != nil && !app.androidCertFingerprints.isEmpty),
            ],
            error: error, notice: ConsolePages.notice(request), firstSteps: try await firstSteps.panel(app, evenWhenComplete: true))
        let values = WithFields(model: settings, fields: FormFields(values: fields))
        return pages.page("console-settings", status: status, context: context, framing: .framesSelf, values)
    }

    static func options(_ all: [String], _ selected: String) -> [Choice] {
        all.map { Choice(value: $0, label: labels[$0] ?? $0.replacingOccurrences(of: "_", with: " "), selected: $0 == selected) }
    }

    /// The settings' choices in words.
    static let labels = [
        "disabled": "Off: no redemption links", "sandbox_only": "Sandbox purchases only", "enabled": "On",
        "transfer": "Move the purchase to whoever redeems",
        "transfer_if_no_active_subscription": "Move it only if its owner has no active subscription",
        "keep_with_original": "Keep it with its first owner (share access)", "hosted": "Redeem's success page",
        "redirect": "Redirect to your page with the link", "redirect_with_details": "Redirect to your page with the purchase's details",
        "none": "No tax", "stripe_tax": "Stripe Tax", "managed_payments": "Stripe Managed Payments (Stripe is the merchant of record)",
    ]
}

/// The app's settings: the form's choices, the setup checks and the service files.
struct SettingsPage: PageModel {
    struct WellKnownFile: Sendable {
        let name: String
        let url: String
        let on: Bool
    }

    let scheme: String
    let warnings: [String]
    /// The saved branding's contrast warnings (a refused one never saves).
    let brandWarnings: [String]
    let policies: [Choice]
    let restores: [Choice]
    let afterPurchases: [Choice]
    let taxes: [Choice]
    let promotionCodes: Bool
    let termsConsent: Bool
    let renewalReminders: Bool
    let wellKnown: [WellKnownFile]
    let error: String?
    let notice: String?
    let firstSteps: FirstStepsPanel
}

/// A new app's form; refused, it comes back with what was typed (as `WithFields`).
struct NewAppPage: PageModel {
    let error: String?
    /// The form's own ID: new with each page, kept when a refused form comes back.
    let formID: String
}
