import Foundation
import RedeemCore
import RedeemServer
import RedeemTestSupport
import Testing

/// A price in each currency class goes to Stripe in Stripe's units, comes back from `checkout.session.completed` as the
/// same price in Customer Info and webhooks, is refunded by the amount Stripe reports, and reads right on the page.
/// Through a fake Stripe on loopback, on both engines.
@Suite struct MoneyRoundTripTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let currency: String
        let typed: String
        /// Stripe's `unit_amount` and `amount_total`.
        let stripe: Int
        let amount: Double
        /// How the buyer's page shows it (en-US).
        let page: String
        var testDescription: String { currency }
    }

    static let cases = [
        Case(currency: "USD", typed: "4.99", stripe: 499, amount: 4.99, page: "$4.99"),
        Case(currency: "JPY", typed: "500", stripe: 500, amount: 500, page: "¥500"),
        Case(currency: "KWD", typed: "1.250", stripe: 1250, amount: 1.25, page: "KWD 1.250"),
        Case(currency: "HUF", typed: "1990.50", stripe: 199_050, amount: 1990.5, page: "HUF 1,990.50"),
        Case(currency: "ISK", typed: "500", stripe: 50000, amount: 500, page: "ISK 500"),
    ]

    static var arguments: [(TestBackend, Case)] { TestDatabases.available.flatMap { backend in cases.map { (backend, $0) } } }

    @Test(arguments: arguments)
    func aPriceRoundTripsThroughStripeExactly(_ backend: TestBackend, _ money: Case) async throws {
        try await StripeCheckoutTests.withFakeStripe { base, recorded in
            let stripe = try StripeSettings(secretKey: "sk_test_123", apiBase: base)
            try await TestServer.with(backend, stripeWebhookSecret: StripeWebhookTests.secret, stripe: stripe) { server in
                let app = try await server.createApp()
                let product = """
                    {"id": "lifetime", "type": "non_consumable", "entitlements": ["pro"], "price": {"amount": "\(money.typed)", "currency": "\(money.currency)"}}
                    """
                #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: product).status == 201)
                let hook = #"{"url": "http://localhost:9/hook"}"#
                #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/webhooks", key: app.secret, json: hook).status == 201)

                // The page shows the price with the currency's own decimals.
                let page = try await server.send(.get, "/sandbox/p/\(app.id)/lifetime", key: nil)
                #expect(page.body.replacingOccurrences(of: "\u{00A0}", with: " ").contains(money.page), "\(money.currency)")

                // Stripe is asked for the price in its own units.
                let opened = try await server.send(.get, "/p/\(app.id)/lifetime?email=buyer%40example.com", key: nil)
                #expect(opened.status == 303)
                let form = try #require(recorded.withLockedValue { $0.last }).form
                #expect(form["line_items[0][price_data][unit_amount]"] == String(money.stripe))
                #expect(form["line_items[0][price_data][currency]"] == money.currency.lowercased())

                // What Stripe reports paid is the same price.
                let paid = StripeWebhookTests.session(
                    "money", app: app.id, product: "lifetime", mode: "payment", subscription: nil, paymentIntent: "pi_money", user: "buyer"
                )
                .replacingOccurrences(
                    of: #""amount_total": 499, "currency": "usd""#,
                    with: #""amount_total": \#(money.stripe), "currency": "\#(money.currency.lowercased())""#)
                #expect(try await StripeWebhookTests.post(server, paid).status == 200)
                let info = try await server.send(.get, "/v1/subscribers/buyer", key: app.secret).object()
                let bought = try #require((info.value(at: "subscriber.non_subscriptions.lifetime") as? [[String: Any]])?.first)
                let price = try #require(bought["price"] as? [String: Any])
                #expect((price["amount"] as? NSNumber)?.doubleValue == money.amount)
                #expect(price["currency"] as? String == money.currency)

                // Refunded by the amount Stripe reports, negative in the CANCELLATION event as RevenueCat sends it.
                let refund = StripeWebhookTests.refund("money_refund", paymentIntent: "pi_money")
                    .replacingOccurrences(
                        of: #""amount": 499, "amount_refunded": 499, "refunded": true, "currency": "usd""#,
                        with:
                            #""amount": \#(money.stripe), "amount_refunded": \#(money.stripe), "refunded": true, "currency": "\#(money.currency.lowercased())""#
                    )
                #expect(try await StripeWebhookTests.post(server, refund).status == 200)

                let events = try await server.deps.store.webhookDeliveries(appID: app.id).map { delivery in
                    try #require(try JSONSerialization.jsonObject(with: Data(delivery.body.utf8)) as? [String: Any])["event"] as? [String: Any]
                }
                let purchase = try #require(events.first { $0?["type"] as? String == "NON_RENEWING_PURCHASE" } ?? nil)
                #expect((purchase["price_in_purchased_currency"] as? NSNumber)?.doubleValue == money.amount)
                #expect(purchase["currency"] as? String == money.currency)
                let cancellation = try #require(events.first { $0?["type"] as? String == "CANCELLATION" } ?? nil)
                #expect((cancellation["price_in_purchased_currency"] as? NSNumber)?.doubleValue == -money.amount)
                #expect((cancellation["price"] as? NSNumber)?.doubleValue == (money.currency == "USD" ? -money.amount : nil))
            }
        }
    }

    /// A paid session whose amount cannot be read is refused and recorded as nothing (no silent 0 USD), and applied
    /// when Stripe delivers it again readable.
    @Test(arguments: TestDatabases.available)
    func anUnreadableAmountIsRefusedAndRetried(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, stripeWebhookSecret: StripeWebhookTests.secret) { server in
            let app = try await CheckoutTests.shop(server)
            let good = StripeWebhookTests.session(
                "unread", app: app.id, product: "lifetime", mode: "payment", subscription: nil, paymentIntent: "pi_u", user: "payer")
            for broken in [
                good.replacingOccurrences(of: #""amount_total": 499, "currency": "usd""#, with: #""amount_total": null, "currency": "usd""#),
                good.replacingOccurrences(of: #""currency": "usd""#, with: #""currency": "xyz""#),
            ] {
                let refused = try await StripeWebhookTests.post(server, broken)
                #expect(refused.status == 422)
                #expect(try refused.object()["code"] as? Int == 7001)
                #expect(try await server.send(.get, "/v1/subscribers/payer", key: app.secret).body.contains("\"non_subscriptions\":{}"))
            }
            #expect(try await StripeWebhookTests.post(server, good).status == 200)
            let info = try await server.send(.get, "/v1/subscribers/payer", key: app.secret).object()
            let bought = try #require((info.value(at: "subscriber.non_subscriptions.lifetime") as? [[String: Any]])?.first)
            #expect((bought["price"] as? [String: Any])?["currency"] as? String == "USD")
        }
    }

    /// Prices Stripe cannot charge are refused where they are set, naming the field; so are finer amounts than the
    /// currency has.
    @Test(arguments: TestDatabases.available) func unchargeablePricesAreRefusedWhenSet(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            for (price, field, reason) in [
                (#"{"amount": "1.255", "currency": "KWD"}"#, "price.amount", "Stripe charges KWD in steps of 0.010 KWD"),
                (#"{"amount": "500.5", "currency": "JPY"}"#, "price.amount", "JPY amounts have no decimals"),
                (#"{"amount": "1", "currency": "IRR"}"#, "price.currency", "Stripe cannot charge IRR"),
                (#"{"amount": "1", "currency": "ABC"}"#, "price.currency", "'ABC' is not an ISO 4217 currency code such as USD"),
            ] {
                let product = #"{"id": "p", "type": "non_consumable", "entitlements": ["pro"], "price": \#(price)}"#
                let reply = try await server.send(.post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: product)
                #expect(reply.status == 422, "\(price)")
                #expect(try reply.object()["field"] as? String == field, "\(price)")
                #expect((try reply.object()["message"] as? String)?.contains(reason) == true, "\(reply.body)")
            }
        }
    }
}
