import Foundation
import HTTPTypes
import RedeemCore
import RedeemTestSupport
import Testing

/// The console's Stripe Checkout settings: tax (none, Stripe Tax, Managed Payments) and the product tax code.
@Suite struct CheckoutTaxSettingsTests {
    @Test(arguments: TestDatabases.available)
    func managedPaymentsNeedATaxCodeAndTheFormKeepsWhatWasTyped(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let owner = try await ConsoleTests.signedInOwner(server)
            let page = try await server.send(.get, "/console/apps/\(app.id)/settings", key: nil, headers: [.cookie: owner])
            #expect(page.body.contains(#"<option value="managed_payments">Stripe Managed Payments (Stripe is the merchant of record)</option>"#))
            var fields = BrandingPagesTests.settingsFields(csrf: try ConsoleOperationsTests.csrf(page))
            fields["checkout_tax"] = "managed_payments"
            fields["stripe_tax_code"] = ""
            let refused = try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: owner)
            #expect(refused.status == 422)
            #expect(refused.body.contains("Product tax code is required with managed payments"))
            #expect(refused.body.contains(#"<option value="managed_payments" selected>"#), "the choice is kept")

            fields["stripe_tax_code"] = "txcd_1234"
            let malformed = try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: owner)
            #expect(malformed.status == 422 && malformed.body.contains("Product tax code must be a Stripe product tax code"))
            #expect(malformed.body.contains(#"value="txcd_1234""#))
            #expect(try await server.deps.store.app(id: app.id).checkoutTax == .none, "nothing saved")

            fields["stripe_tax_code"] = "txcd_10000000"
            let saved = try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: owner)
            #expect(saved.status == 303, "\(saved.body)")
            let stored = try await server.deps.store.app(id: app.id)
            #expect(stored.checkoutTax == .managedPayments && stored.stripeTaxCode == "txcd_10000000")
        }
    }
}
