import Foundation
import RedeemCore
import Testing

@Suite struct AppChangesTests {
    let now = Date(timeIntervalSince1970: 1_767_225_600)

    @Test func newAppsGetDefaultsAndAUniqueScheme() throws {
        var changes = AppChanges()
        changes.name = "  Fitness  "
        let app = try changes.makeApp(now: now)
        #expect(app.name == "Fitness")
        #expect(app.redemptionLinkPolicy == .enabled)
        #expect(app.restoreBehavior == .transfer)
        #expect(app.redemptionLinkLifetimeSeconds == 3600)
        #expect(app.scheme.wholeMatch(of: /rdm-[0-9a-f]{10}/) != nil)
        #expect(try changes.makeApp(now: now).scheme != app.scheme)
    }

    @Test func nameIsRequired() {
        #expect(throws: ValidationError(field: "name", reason: "is required")) { try AppChanges().makeApp(now: now) }
    }

    /// The name heads the app's e-mails (their subject and sender), which hold no line break.
    @Test func nameIsOneLine() throws {
        for name in ["Café\nLumen", "Tab\tbed", "Bell\u{7}"] {
            var changes = AppChanges()
            changes.name = name
            #expect(throws: ValidationError(field: "name", reason: "must be on one line, without control characters")) {
                try changes.makeApp(now: now)
            }
        }
        var changes = AppChanges()
        changes.name = "  Café Lumen – Pro 🎧  "
        #expect(try changes.makeApp(now: now).name == "Café Lumen – Pro 🎧")
    }

    @Test(arguments: [
        ("icon_url", "http://example.com/i.png"), ("app_store_url", "not a url"), ("ios_team_id", "abc"),
        ("ios_bundle_id", "nodots"), ("android_package_name", "1com.x"), ("redemption_link_policy", "sometimes"),
        ("restore_behavior", "share"), ("support_email", "nobody"), ("terms_url", "http://example.com/terms"),
        ("privacy_url", "/privacy"), ("stripe_tax_code", "txcd_1000"), ("stripe_tax_code", "TXCD_10000000"),
    ])
    func rejectsBadFieldsNamingThem(_ field: String, value: String) throws {
        let json = try JSONSerialization.data(withJSONObject: ["name": "App", field: value])
        let changes = try JSONDecoder().decode(AppChanges.self, from: json)
        #expect { try changes.makeApp(now: now) } throws: { ($0 as? ValidationError)?.field == field }
    }

    @Test func updatesAreAllOrNothingAndEmptyClears() throws {
        var create = AppChanges()
        create.name = "App"
        create.supportEmail = "help@example.com"
        var app = try create.makeApp(now: now)
        var bad = AppChanges()
        bad.name = "Renamed"
        bad.redemptionLinkLifetimeSeconds = 5
        #expect(throws: ValidationError.self) { try bad.apply(to: &app, now: now) }
        #expect(app.name == "App")
        var good = AppChanges()
        good.supportEmail = ""
        good.androidCertFingerprints = [Array(repeating: "ab", count: 32).joined(separator: ":")]
        good.restoreBehavior = "keep_with_original"
        try good.apply(to: &app, now: now.addingTimeInterval(5))
        #expect(app.supportEmail == nil)
        #expect(app.androidCertFingerprints == [Array(repeating: "AB", count: 32).joined(separator: ":")])
        #expect(app.restoreBehavior == .keepWithOriginal)
        #expect(app.updatedAt == now.addingTimeInterval(5))
    }

    /// Managed Payments needs the product's tax code: given with it, or already set; and it cannot be cleared under it.
    @Test func managedPaymentsNeedATaxCode() throws {
        var create = AppChanges()
        create.name = "App"
        create.checkoutTax = "managed_payments"
        #expect { try create.makeApp(now: now) } throws: { ($0 as? ValidationError)?.field == "stripe_tax_code" }
        create.stripeTaxCode = "txcd_10000000"
        var app = try create.makeApp(now: now)
        #expect(app.checkoutTax == .managedPayments && app.stripeTaxCode == "txcd_10000000")
        var clear = AppChanges()
        clear.stripeTaxCode = ""
        #expect(throws: ValidationError.self) { try clear.apply(to: &app, now: now) }
        #expect(app.stripeTaxCode == "txcd_10000000")
        clear.checkoutTax = "stripe_tax"
        try clear.apply(to: &app, now: now)
        #expect(app.checkoutTax == .stripeTax && app.stripeTaxCode == nil)
    }

    /// Consent can be required only to terms there are.
    @Test func requiredConsentNeedsTerms() throws {
        var create = AppChanges()
        create.name = "App"
        create.requireTermsConsent = true
        #expect { try create.makeApp(now: now) } throws: { ($0 as? ValidationError)?.field == "require_terms_consent" }
        create.termsURL = "https://example.com/terms"
        var app = try create.makeApp(now: now)
        #expect(app.requireTermsConsent)
        #expect(app.consentGiven(ticked: true) && !app.consentGiven(ticked: false))
        var clear = AppChanges()
        clear.termsURL = ""
        #expect(throws: ValidationError.self) { try clear.apply(to: &app, now: now) }
        clear.requireTermsConsent = false
        try clear.apply(to: &app, now: now)
        #expect(app.termsURL == nil && !app.requireTermsConsent)
        #expect(app.consentGiven(ticked: false), "not asked for, nothing to tick")
    }
}
