import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer

struct Apps: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, show, update and list apps.", subcommands: [Create.self, List.self, Show.self, Update.self]
    )

    /// Every app setting as a flag: the same fields as the admin API.
    struct SettingsOptions: ParsableArguments {
        @Option(help: "Absolute https URL of the app's icon, or /assets/<file> served by Redeem.")
        var iconURL: String?
        @Option var appStoreURL: String?
        @Option var playStoreURL: String?
        @Option(help: "Apple team ID (10 characters), for universal links.")
        var iosTeamID: String?
        @Option(help: "iOS bundle ID, for universal links.")
        var iosBundleID: String?
        @Option var androidPackageName: String?
        @Option(help: "SHA-256 signing certificate fingerprint; repeat for several.")
        var androidCertFingerprint: [String] = []
        @Option(help: "disabled, sandbox_only or enabled")
        var redemptionLinkPolicy: String?
        @Option(help: "transfer, transfer_if_no_active_subscription or keep_with_original")
        var restoreBehavior: String?
        @Option var redemptionLinkLifetimeSeconds: Int?
        @Option var supportEmail: String?
        @Option(help: "The app's terms of use (https), linked from its buyer pages, e-mails and Stripe Checkout; empty clears it.")
        var termsURL: String?
        @Option(help: "The app's privacy policy (https), linked where the terms are; empty clears it.")
        var privacyURL: String?
        @Option(help: "Buyers tick a box agreeing to the terms before paying (needs --terms-url): true or false.")
        var requireTermsConsent: Bool?
        @Option(help: "E-mail buyers before a yearly renewal and before a free trial of over a month ends: true or false.")
        var renewalReminders: Bool?
        @Option(help: "After a web purchase: hosted (Redeem's success page), redirect, or redirect_with_details.")
        var afterPurchase: String?
        @Option(help: "Where to redirect after a purchase (https; http://localhost for sandbox).")
        var afterPurchaseURL: String?
        @Option(help: "Offer-code redemptions allowed per quarter.")
        var offerCodeQuota: Int?
        @Option(
            help:
                "Tax at Stripe Checkout: none, stripe_tax (Stripe Tax with a billing address), or managed_payments (Stripe as the merchant of record; needs --stripe-tax-code)."
        )
        var checkoutTax: String?
        @Option(help: "The Stripe product tax code of what the app sells (txcd_ and 8 digits), for Stripe Tax and Managed Payments; empty clears it.")
        var stripeTaxCode: String?
        @Option(help: "Stripe promotion codes at Stripe Checkout: true or false.")
        var allowPromotionCodes: Bool?
        @Option(
            name: [.customLong("logo"), .customLong("brand-logo-url")],
            help: "Checkout branding: the logo on every buyer page (https); empty shows the icon.")
        var logo: String?
        @Option(
            name: [.customLong("accent"), .customLong("brand-accent")],
            help: "Checkout branding: the accent colour in light mode, #rrggbb (empty: Redeem's).")
        var accent: String?
        @Option(name: [.customLong("background"), .customLong("brand-background")], help: "The card's background in light mode, #rrggbb.")
        var background: String?
        @Option(name: [.customLong("foreground"), .customLong("brand-foreground")], help: "The text colour in light mode, #rrggbb.")
        var foreground: String?
        @Option(name: [.customLong("accent-dark"), .customLong("brand-accent-dark")], help: "The accent colour in dark mode, #rrggbb.")
        var accentDark: String?
        @Option(name: [.customLong("background-dark"), .customLong("brand-background-dark")], help: "The card's background in dark mode, #rrggbb.")
        var backgroundDark: String?
        @Option(name: [.customLong("foreground-dark"), .customLong("brand-foreground-dark")], help: "The text colour in dark mode, #rrggbb.")
        var foregroundDark: String?

        func changes(name: String?) -> AppChanges {
            var changes = AppChanges()
            changes.name = name
            changes.iconURL = iconURL
            changes.appStoreURL = appStoreURL
            changes.playStoreURL = playStoreURL
            changes.iosTeamID = iosTeamID
            changes.iosBundleID = iosBundleID
            changes.androidPackageName = androidPackageName
            changes.androidCertFingerprints = androidCertFingerprint.isEmpty ? nil : androidCertFingerprint
            changes.redemptionLinkPolicy = redemptionLinkPolicy
            changes.restoreBehavior = restoreBehavior
            changes.redemptionLinkLifetimeSeconds = redemptionLinkLifetimeSeconds
            changes.supportEmail = supportEmail
            changes.termsURL = termsURL
            changes.privacyURL = privacyURL
            changes.requireTermsConsent = requireTermsConsent
            changes.renewalReminders = renewalReminders
            changes.afterPurchase = afterPurchase
            changes.afterPurchaseURL = afterPurchaseURL
            changes.offerCodeQuotaPerQuarter = offerCodeQuota
            changes.checkoutTax = checkoutTax
            changes.stripeTaxCode = stripeTaxCode
            changes.allowPromotionCodes = allowPromotionCodes
            changes.brandLogoURL = logo
            changes.brandAccent = accent
            changes.brandBackground = background
            changes.brandForeground = foreground
            changes.brandAccentDark = accentDark
            changes.brandBackgroundDark = backgroundDark
            changes.brandForegroundDark = foregroundDark
            return changes
        }
    }

    /// An app as the admin API answers its creation: the app, and its keys in plaintext.
    static func created(_ created: CreatedApp) -> Components.Schemas.CreatedApp {
        .init(
            value1: created.app,
            value2: .init(
                keys: .init(
                    publicSandbox: created.plaintext(.publicSandbox) ?? "", publicProduction: created.plaintext(.publicProduction) ?? "",
                    secret: created.plaintext(.secret) ?? "")))
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an app and print its keys (shown once).")
        @Option var name: String
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let changes = settings.changes(name: name)
            let created = try await target.run(
                local: { Apps.created(try await $0.createApp(changes)) },
                remote: { admin in try await admin.call { try await $0.createApp(body: .json(changes)) }.created.body.json }
            )
            if json { return try Output.json(created) }
            let (app, keys) = (created.value1, created.value2.keys)
            print(
                """
                Created app \(app.name) (\(app.id))
                  scheme:            \(app.scheme)
                  public sandbox:    \(keys.publicSandbox)
                  public production: \(keys.publicProduction)
                  secret:            \(keys.secret)
                Keys are shown only now; store them safely.
                """)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List apps.")
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let apps = try await target.run(
                local: { try await $0.apps() }, remote: { admin in try await admin.call { try await $0.listApps() }.ok.body.json.apps })
            if json { return try Output.json(Components.Schemas.AppList(apps: apps)) }
            for app in apps { print("\(app.id)  \(app.scheme)  \(app.name)") }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show every setting of one app.")
        @Argument(help: "The app's ID (or --app, or \(Setting.app.environmentName)).")
        var id: String?
        @OptionGroup var app: AppOption
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try id ?? app.id
            let app = try await target.run(
                local: { try await $0.app(id: appID) },
                remote: { admin in try await admin.call { try await $0.getApp(path: .init(appId: appID)) }.ok.body.json })
            if json { return try Output.json(app) }
            print(Apps.describe(app))
        }
    }

    /// `accent #0f5132, background #ffffff`; nil when none is set.
    static func colours(_ palette: BrandPalette) -> String? {
        let set = [("accent", palette.accent), ("background", palette.background), ("text", palette.foreground)]
            .compactMap { name, color in color.map { "\(name) \($0.hex)" } }
        return set.isEmpty ? nil : set.joined(separator: ", ")
    }

    /// Every setting, one per line, unset ones shown as such.
    static func describe(_ app: App) -> String {
        let rows: [(String, String?)] = [
            ("scheme", app.scheme), ("icon", app.iconURL), ("App Store", app.appStoreURL), ("Play Store", app.playStoreURL),
            ("support e-mail", app.supportEmail), ("renewal reminders", app.renewalReminders ? "e-mailed to buyers" : "off"),
            ("terms of use", app.termsURL.map { $0 + (app.requireTermsConsent ? " (a box to tick)" : "") }), ("privacy policy", app.privacyURL),
            ("iOS app", app.iosTeamID.flatMap { team in app.iosBundleID.map { "\(team).\($0)" } }),
            ("Android package", app.androidPackageName),
            ("Android certificates", app.androidCertFingerprints.isEmpty ? nil : app.androidCertFingerprints.joined(separator: ", ")),
            ("redemption links", app.redemptionLinkPolicy.rawValue),
            ("link lifetime", "\(app.redemptionLinkLifetimeSeconds / 60) minutes"),
            ("restore behavior", app.restoreBehavior.rawValue),
            ("after purchase", app.afterPurchase.rawValue + (app.afterPurchaseURL.map { " → \($0)" } ?? "")),
            (
                "checkout",
                "tax \(app.checkoutTax.rawValue)\(app.stripeTaxCode.map { " (\($0))" } ?? ""), promotion codes \(app.allowPromotionCodes ? "on" : "off")"
            ),
            ("offer-code quota", "\(app.offerCodeQuotaPerQuarter) per quarter"),
            ("logo", app.brandLogoURL), ("colours (light)", Self.colours(app.branding.light)), ("colours (dark)", Self.colours(app.branding.dark)),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        let lines = rows.map { "  " + $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + ($0.1 ?? "(not set)") }
        return (["\(app.name) (\(app.id))"] + lines).joined(separator: "\n")
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change an app's settings; an empty value clears a field.")
        @Argument(help: "The app's ID (or --app, or \(Setting.app.environmentName)).")
        var id: String?
        @OptionGroup var app: AppOption
        @Option var name: String?
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try id ?? app.id
            let changes = settings.changes(name: name)
            let app = try await target.run(
                local: { try await $0.updateApp(id: appID, changes) },
                remote: { admin in try await admin.call { try await $0.updateApp(path: .init(appId: appID), body: .json(changes)) }.ok.body.json }
            )
            if json { return try Output.json(app) }
            print("Updated \(app.id) (\(app.name)).")
        }
    }
}
