import Foundation
import RedeemCore

/// The settings form read as the API's changes, and its refusals in the form's words.
extension ConsoleSettingsController {
    /// A refusal in the form's words: its label, and minutes where the form asks for minutes.
    static func sentence(_ error: ValidationError) -> String {
        if error.field == "redemption_link_lifetime_seconds", error.reason.hasPrefix("must be between") {
            return "Link lifetime must be between 1 and 10,080 minutes (7 days)."
        }
        return "\(label(error.field)) \(error.reason)."
    }

    /// The form as the API's changes: every field given (an empty one clears it), the fingerprints one per line.
    static func changes(from form: [String: String]) throws -> AppChanges {
        var changes = AppChanges()
        changes.name = form["name"]
        changes.iconURL = form["icon_url"]
        changes.appStoreURL = form["app_store_url"]
        changes.playStoreURL = form["play_store_url"]
        changes.supportEmail = form["support_email"]
        changes.termsURL = form["terms_url"]
        changes.privacyURL = form["privacy_url"]
        // A checkbox sends nothing when off: the form with the terms field turns it off then.
        if form["terms_url"] != nil { changes.requireTermsConsent = form["require_terms_consent"] == "yes" }
        if form["support_email"] != nil { changes.renewalReminders = form["renewal_reminders"] == "yes" }
        changes.iosTeamID = form["ios_team_id"]
        changes.iosBundleID = form["ios_bundle_id"]
        changes.androidPackageName = form["android_package_name"]
        changes.androidCertFingerprints = form["android_cert_fingerprints"].map {
            $0.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        changes.redemptionLinkPolicy = form["redemption_link_policy"]
        changes.restoreBehavior = form["restore_behavior"]
        changes.afterPurchase = form["after_purchase"]
        changes.afterPurchaseURL = form["after_purchase_url"]
        changes.checkoutTax = form["checkout_tax"]
        changes.stripeTaxCode = form["stripe_tax_code"]
        // A checkbox sends nothing when off: the settings form (which has the tax field) turns it off then.
        if form["checkout_tax"] != nil { changes.allowPromotionCodes = form["allow_promotion_codes"] == "yes" }
        for field in brandFields { changes[keyPath: field.path] = form[field.name] }
        if let minutes = form["redemption_link_lifetime_minutes"] {
            guard let value = Int(minutes) else {
                throw ValidationError(field: "redemption_link_lifetime_seconds", reason: "must be a whole number of minutes")
            }
            changes.redemptionLinkLifetimeSeconds = value * 60
        }
        return changes
    }

    /// The checkout branding's fields: the form's name, the change it makes, its label.
    static var brandFields: [(name: String, path: WritableKeyPath<AppChanges, String?>, label: String)] {
        [
            ("brand_logo_url", \.brandLogoURL, "Logo URL"), ("brand_accent", \.brandAccent, "Accent (light)"),
            ("brand_background", \.brandBackground, "Background (light)"), ("brand_foreground", \.brandForeground, "Text colour (light)"),
            ("brand_accent_dark", \.brandAccentDark, "Accent (dark)"), ("brand_background_dark", \.brandBackgroundDark, "Background (dark)"),
            ("brand_foreground_dark", \.brandForegroundDark, "Text colour (dark)"),
        ]
    }

    /// A field's name as the form labels it.
    static func label(_ field: String) -> String {
        if let brand = brandFields.first(where: { $0.name == field }) { return brand.label }
        return switch field {
        case "redemption_link_lifetime_seconds": "Link lifetime"
        case "android_cert_fingerprints": "Certificate fingerprints"
        case "terms_url": "Terms of use URL"
        case "privacy_url": "Privacy policy URL"
        case "stripe_tax_code": "Product tax code"
        case "require_terms_consent": "Agreeing to the terms"
        case "renewal_reminders": "Renewal reminders"
        default:
            field.replacingOccurrences(of: "_", with: " ").capitalized.replacingOccurrences(of: "Url", with: "URL")
                .replacingOccurrences(of: "Id", with: "ID")
        }
    }
}
