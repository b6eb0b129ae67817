import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `/console/apps/{app_id}/settings`: every setting a page or link depends on. Any operator reads; owners change, through
/// the same `AdminService.updateApp` as the admin API and the CLI (validated there, audited as `app.update`).
struct ConsoleSettingsController {
    let service: ConsoleService
    let pages: ConsolePages
    let admin: AdminService
    let publicURL: URL
    /// Whether Stripe is configured; its absence is a setup warning.
    let paidCheckout: Bool
    /// The app's first steps, shown here even when complete.
    let firstSteps: FirstStepsService

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/console/apps/{app_id}/settings", use: settings)
        router.post("/console/apps/{app_id}/settings", use: save)
        router.get("/console/new-app", use: newAppForm)
        router.post("/console/new-app", use: createApp)
    }

    @Sendable func settings(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await page(app: try context.currentApp, form: nil, error: nil, status: .ok, request: request, context: context)
    }

    @Sendable func save(_ request: Request, context: ConsoleContext) async throws -> Response {
        try context.require(.changeSettings, "change settings")
        let app = try context.currentApp
        do {
            _ = try await admin.acting(as: context.session.actor).updateApp(id: app.id, Self.changes(from: context.form))
            return ConsolePages.redirect(ConsolePages.noticeURL("/console/apps/\(app.id)/settings", .settingsSaved))
        } catch let error as ValidationError {
            return try await page(
                app: app, form: context.form, error: Self.sentence(error), status: .unprocessableContent, request: request, context: context)
        }
    }

    /// An owner's form for a new app: its name and what its pages show first.
    @Sendable func newAppForm(_ request: Request, context: ConsoleContext) async throws -> Response {
        try context.require(.changeSettings, "create apps")
        return pages.page("console-new-app", context: context, NewAppPage(error: nil, formID: FormID.make()))
    }

    /// Creates the app with its three keys (shown once), through the same `AdminService.createApp` as the admin API
    /// and the CLI; then on to its settings. The form's own ID names the app: the same form sent again (a resubmit
    /// after a reload) creates no second app and says so, since the first answer was its keys' only showing.
    @Sendable func createApp(_ request: Request, context: ConsoleContext) async throws -> Response {
        try context.require(.changeSettings, "create apps")
        let form = context.form
        let requestID = try FormID.submitted(form, field: "form_id")
        let id = requestID?.derivedID(prefix: "app", scope: "app-request") ?? App.generateID()
        do {
            let created = try await admin.acting(as: context.session.actor).createApp(try Self.changes(from: form), id: id)
            let keys = created.keys.map { key in (key.record.kind.rawValue.replacingOccurrences(of: "_", with: " ") + " key", key.plaintext) }
            let secret = ConsoleSecret(
                title: "\(created.app.name) created", what: "Its keys, stored hashed and shown only now.", values: keys,
                hint: "The public keys go in the app; the secret key on your servers only. Next: the app's settings.",
                back: "/console/apps/\(created.app.id)/settings")
            return pages.secretPage(secret, context: context, showing: created.app)
        } catch let error as StoreError where error.isConflict && requestID != nil {
            let app = try await admin.app(id: id)
            let repeated = ConsoleSecret(
                title: "\(app.name) already created", what: "This form already created the app; its keys were shown on that answer only.",
                values: [], hint: "If you did not see them, create new keys on its Keys page and revoke the unseen ones.",
                back: "/console/apps/\(app.id)/keys", repeated: true)
            return pages.secretPage(repeated, context: context, showing: app)
        } catch let error as ValidationError {
            let typed = form.filter { ["name", "icon_url", "app_store_url", "play_store_url", "support_email"].contains($0.key) }
            let formID = requestID?.value ?? FormID.make()
            let values = WithFields(model: NewAppPage(error: Self.sentence(error), formID: formID), fields: FormFields(values: typed))
            return pages.page("console-new-app", status: .unprocessableContent, context: context, values)
        }
    }

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
        default:
            field.replacingOccurrences(of: "_", with: " ").capitalized.replacingOccurrences(of: "Url", with: "URL")
                .replacingOccurrences(of: "Id", with: "ID")
        }
    }

    func page(
        app: App, form: [String: String]?, error: String?, status: HTTPResponse.Status, request: Request, context: ConsoleContext
    ) async throws -> Response {
        // On a refused save the form shows what was typed; otherwise the stored settings.
        func value(_ field: String, _ stored: String?) -> String { form?[field] ?? stored ?? "" }
        let fields: [String: String] = [
            "name": value("name", app.name), "icon_url": value("icon_url", app.iconURL), "app_store_url": value("app_store_url", app.appStoreURL),
            "play_store_url": value("play_store_url", app.playStoreURL), "support_email": value("support_email", app.supportEmail),
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
        "none": "No tax", "stripe_tax": "Stripe Tax",
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
