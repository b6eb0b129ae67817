import Foundation
import Testing

@testable import RedeemCore

struct AppSetupCheckTests {
    static let complete = App(
        id: "app_1", name: "Demo", iconURL: "https://example.com/icon.png", appStoreURL: "https://apps.apple.com/app/id1",
        scheme: "demo", iosTeamID: "TEAM123456", iosBundleID: "com.example.demo", supportEmail: "help@example.com",
        createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))

    @Test func aCompleteAppWithStripeHasNoWarning() {
        #expect(AppSetupCheck.warnings(Self.complete, paidCheckout: true).isEmpty)
    }

    /// Without Stripe the production link tells buyers only that it is not on sale; the operator reads why here.
    @Test func aServerWithoutStripeIsWarnedOf() {
        let warnings = AppSetupCheck.warnings(Self.complete, paidCheckout: false)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("Stripe is not configured") == true)
        #expect(warnings.first?.contains("REDEEM_STRIPE_SECRET_KEY") == true)
    }
}
