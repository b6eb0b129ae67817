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

struct SandboxClockTests {
    static let bought = Date(timeIntervalSince1970: 1_800_000_000)

    static func purchase(sandbox: Bool, lasting seconds: TimeInterval?) -> Purchase {
        Purchase(
            id: "pur_1", appID: "app_1", customerID: "cus_1", productID: "monthly", store: .rcBilling, isSandbox: sandbox, purchaseDate: bought,
            originalPurchaseDate: bought, expiresDate: seconds.map { bought.addingTimeInterval($0) }, storeTransactionID: "t", price: nil, email: nil,
            createdAt: bought)
    }

    /// The sandbox checkout's month (5 minutes) and year (an hour) run fast; a real month, a lifetime or a paid purchase do not.
    @Test func onlySandboxPeriodsOfAnHourOrLessRunFast() throws {
        let month = try SandboxClock.expiry(period: "P1M", from: Self.bought).timeIntervalSince(Self.bought)
        let year = try SandboxClock.expiry(period: "P1Y", from: Self.bought).timeIntervalSince(Self.bought)
        #expect(SandboxClock.runs(Self.purchase(sandbox: true, lasting: month)))
        #expect(SandboxClock.runs(Self.purchase(sandbox: true, lasting: year)))
        #expect(!SandboxClock.runs(Self.purchase(sandbox: true, lasting: 30 * 86_400)))
        #expect(!SandboxClock.runs(Self.purchase(sandbox: true, lasting: nil)))
        #expect(!SandboxClock.runs(Self.purchase(sandbox: false, lasting: month)))
    }
}
