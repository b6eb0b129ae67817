import Foundation
import RedeemCore
import RedeemServer
import RedeemTestSupport
import Testing

/// The console's Products page: an owner adds, refuses and removes a product's prices per currency and sets its trial;
/// a refused form comes back with what was typed and a sentence naming the field.
@Suite struct ConsolePricesTests {
    @Test(arguments: TestDatabases.available)
    func ownersEditPricesAndTrialsOnProducts(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            _ = try await ConsoleTests.owner(server)
            let session = try await ConsoleTests.signIn(server)
            let cookie = "redeem_console=\(session)"
            let products = "/console/apps/\(app.id)/products"
            let page = try await server.send(.get, products, key: nil, headers: [.cookie: cookie])
            let csrf = String(try #require(page.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1))
            let refused = try await ConsoleTests.post(
                server, products + "/monthly/prices", ["csrf": csrf, "currency": "JPY", "amount": "700.5"], cookie: cookie)
            #expect(refused.status == 422)
            #expect(refused.body.contains("Amount: JPY amounts have no decimals."))
            #expect(refused.body.contains(#"name="amount" inputmode="decimal" value="700.5""#), "what was typed")
            #expect(refused.body.contains(#"name="currency" value="JPY""#))
            let saved = try await ConsoleTests.post(
                server, products + "/monthly/prices", ["csrf": csrf, "currency": "eur", "amount": "4.49"], cookie: cookie)
            #expect(saved.status == 303)
            let after = try await server.send(.get, products, key: nil, headers: [.cookie: cookie])
            #expect(after.body.contains("also 4.49 EUR") && after.body.contains("Remove EUR"))
            let trial = try await ConsoleTests.post(server, products + "/monthly/trial", ["csrf": csrf, "trial_days": "seven"], cookie: cookie)
            #expect(trial.status == 422 && trial.body.contains("Free trial (days): must be a number of days"))
            #expect(
                try await ConsoleTests.post(server, products + "/monthly/trial", ["csrf": csrf, "trial_days": "14"], cookie: cookie).status == 303)
            #expect(
                try await ConsoleTests.post(server, products + "/lifetime/trial", ["csrf": csrf, "trial_days": "3"], cookie: cookie).status == 422)
            #expect(try await ConsoleTests.post(server, products + "/monthly/prices/EUR/remove", ["csrf": csrf], cookie: cookie).status == 303)
            let billing = try await server.deps.store.productBilling(appID: app.id, productID: "monthly")
            #expect(billing.currencies == ["USD"] && billing.trialDays == 14)
            let forged = try await ConsoleTests.post(server, products + "/monthly/trial", ["csrf": "nope", "trial_days": "1"], cookie: cookie)
            #expect(forged.status == 403 || forged.status == 400)
        }
    }
}
