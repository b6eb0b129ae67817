import Foundation
import RedeemCore
import RedeemStore
import RedeemTestSupport
import Testing

/// V027's columns (the checkout branding and when the link policy was chosen), V038's (the legal links) and V039's (the
/// Stripe tax code) and V040's (terms consent), written and read back on both engines.
@Suite struct BrandingStoreTests {
    static let now = ISODate.parse("2026-06-01T00:00:00Z")!

    @Test(arguments: TestDatabases.available)
    func brandingIsStoredReadAndCleared(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            var created = AppChanges()
            created.name = "Branded"
            created.brandAccent = "#0F5132"
            created.brandLogoURL = "https://example.com/logo.png"
            let app = try created.makeApp(now: Self.now)
            try await store.createApp(app, keys: [])
            let read = try await store.app(id: app.id)
            #expect(read.brandAccent?.hex == "#0f5132")
            #expect(read.brandLogoURL == "https://example.com/logo.png")
            #expect(read.brandBackground == nil && read.linkPolicyChosenAt == nil)

            var updated = read
            var changes = AppChanges()
            changes.brandAccent = ""
            changes.brandBackgroundDark = "#000"
            changes.brandForegroundDark = "#f5f5f5"
            changes.redemptionLinkPolicy = "sandbox_only"
            try changes.apply(to: &updated, now: Self.now.addingTimeInterval(60))
            try await store.updateApp(updated)
            let again = try await store.app(id: app.id)
            #expect(again.brandAccent == nil)
            #expect(again.branding.dark == BrandPalette(background: HexColor("#000000"), foreground: HexColor("#f5f5f5")))
            #expect(again.linkPolicyChosenAt == Self.now.addingTimeInterval(60))
            #expect(again.redemptionLinkPolicy == .sandboxOnly)
            #expect(try await store.apps().first { $0.id == app.id }?.branding == again.branding)
        }
    }

    @Test(arguments: TestDatabases.available)
    func legalLinksAndTaxCodeAreStoredReadAndCleared(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            var created = AppChanges()
            created.name = "Legal"
            created.termsURL = "https://example.com/terms"
            created.checkoutTax = "managed_payments"
            created.stripeTaxCode = "txcd_10000000"
            created.requireTermsConsent = true
            created.renewalReminders = true
            let app = try created.makeApp(now: Self.now)
            try await store.createApp(app, keys: [])
            let read = try await store.app(id: app.id)
            #expect(read.termsURL == "https://example.com/terms" && read.privacyURL == nil)
            #expect(read.checkoutTax == .managedPayments && read.stripeTaxCode == "txcd_10000000" && read.requireTermsConsent)
            #expect(read.renewalReminders, "migration 41's column, written with the app")

            var updated = read
            var changes = AppChanges()
            changes.termsURL = ""
            changes.requireTermsConsent = false
            changes.renewalReminders = false
            changes.privacyURL = "https://example.com/privacy"
            try changes.apply(to: &updated, now: Self.now.addingTimeInterval(60))
            try await store.updateApp(updated)
            let again = try await store.app(id: app.id)
            #expect(again.termsURL == nil && again.privacyURL == "https://example.com/privacy" && !again.requireTermsConsent)
            #expect(!again.renewalReminders)
            #expect(try await store.apps().first { $0.id == app.id }?.privacyURL == "https://example.com/privacy")
        }
    }
}
