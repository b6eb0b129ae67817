import Foundation
import HTTPTypes
import Logging
import RedeemCore
import RedeemServer
import RedeemStripe
import RedeemTestSupport
import Testing

/// Several prices per product (the buyer's chosen by `?currency=`, the browser's region, or the default), Stripe
/// Prices made to match, and free trials on web subscriptions in the sandbox and through Stripe.
@Suite struct WebBillingTests {
    static func addPrice(
        _ server: TestServer, _ app: CreatedAppKeys, _ product: String, _ currency: String, _ amount: String
    ) async throws
        -> TestServer.Reply
    {
        try await server.send(
            .put, "/admin/v1/apps/\(app.id)/products/\(product)/prices/\(currency)", key: app.secret, json: #"{"amount": "\#(amount)"}"#)
    }

    static func setTrial(_ server: TestServer, _ app: CreatedAppKeys, _ product: String, days: Int) async throws -> TestServer.Reply {
        try await server.send(.put, "/admin/v1/apps/\(app.id)/products/\(product)/trial", key: app.secret, json: #"{"trial_days": \#(days)}"#)
    }

    static func pay(_ server: TestServer, _ path: String, email: String, currency: String? = nil) async throws -> TestServer.Reply {
        let page = try await server.send(.get, path + (currency.map { "?currency=\($0)" } ?? ""), key: nil)
        #expect(page.status == 200)
        var body = "email=\(email.replacingOccurrences(of: "@", with: "%40"))&checkout_id=\(try CheckoutTests.checkoutID(page))"
        if let match = page.body.firstMatch(of: /name="currency" value="([A-Z]{3})"/) { body += "&currency=\(match.output.1)" }
        return try await server.send(.post, path, key: nil, json: body, headers: CheckoutTests.form)
    }

    @Test(arguments: TestDatabases.available)
    func theAdminAPIKeepsPricesPerCurrencyAndTrials(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            let added = try await Self.addPrice(server, app, "monthly", "eur", "4.49")
            #expect(added.status == 200)
            let prices = try #require(try added.object()["prices"] as? [[String: any Sendable]])
            #expect(prices.map { $0["currency"] as? String } == ["USD", "EUR"] && prices[1]["amount"] as? String == "4.49")
            let jpy = try await Self.addPrice(server, app, "monthly", "JPY", "700.5")
            #expect(jpy.status == 422 && jpy.body.contains("JPY amounts have no decimals"))
            #expect(try await Self.addPrice(server, app, "monthly", "XYZ", "1").status == 422)
            #expect(try await Self.addPrice(server, app, "nope", "EUR", "1").status == 404)
            let removeDefault = try await server.send(.delete, "/admin/v1/apps/\(app.id)/products/monthly/prices/USD", key: app.secret)
            #expect(removeDefault.status == 422 && removeDefault.body.contains("default"))
            #expect(try await server.send(.delete, "/admin/v1/apps/\(app.id)/products/monthly/prices/GBP", key: app.secret).status == 404)
            #expect(try await Self.setTrial(server, app, "monthly", days: 7).object()["trial_days"] as? Int == 7)
            #expect(try await Self.setTrial(server, app, "lifetime", days: 7).status == 422, "one-time products have no trial")
            #expect(try await Self.setTrial(server, app, "monthly", days: 400).status == 422)
            let read = try await server.send(.get, "/admin/v1/apps/\(app.id)/products/monthly/prices", key: app.secret).object()
            #expect(read["trial_days"] as? Int == 7)
            let audit = try await server.deps.store.database.read {
                try await $0.query("SELECT action FROM audit_log WHERE app_id = \(app.id) AND action LIKE 'product.%' ORDER BY id")
            }.map { try $0.string("action") }
            #expect(audit.contains("product.price.set") && audit.contains("product.trial.set"))
        }
    }

    /// `?currency=EUR` sells in euros and records them; the page offers the other currencies; an unknown currency is a
    /// page listing the product's, never a server error; the browser's region picks a price when the link does not.
    @Test(arguments: TestDatabases.available)
    func theBuyersCurrencyIsChosenAndRecorded(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            _ = try await Self.addPrice(server, app, "monthly", "EUR", "4.49")
            _ = try await Self.addPrice(server, app, "monthly", "JPY", "700")
            let path = "/sandbox/p/\(app.id)/monthly/eve"
            let euro = try await server.send(.get, path + "?currency=eur&utm_source=mail", key: nil)
            #expect(euro.status == 200 && euro.body.contains("€4.49 / month"))
            #expect(euro.body.contains("?utm_source=mail&amp;currency=JPY") || euro.body.contains("utm_source=mail&amp;currency=JPY"))
            #expect(euro.body.contains(#"name="currency" value="EUR""#))
            let yen = try await server.send(.get, path, key: nil, headers: [.acceptLanguage: "ja-JP,ja;q=0.9"])
            #expect(yen.body.contains("¥700") && !yen.body.contains("¥700.00"), "JPY has no decimals")
            let german = try await server.send(.get, path, key: nil, headers: [.acceptLanguage: "de-DE"])
            #expect(german.body.contains("4,49"), "the region's currency in the locale's format")
            let plain = try await server.send(.get, path, key: nil, headers: [.acceptLanguage: "en"])
            #expect(plain.body.contains("$4.99 / month"), "no region: the default")
            let unknown = try await server.send(.get, path + "?currency=GBP", key: nil)
            #expect(unknown.status == 422)
            #expect(unknown.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(unknown.body.contains("isn’t sold in GBP") && unknown.body.contains("currency=EUR") && unknown.body.contains("currency=USD"))
            let junk = try await server.send(.get, "/p/\(app.id)/monthly?currency=%3Cscript%3E", key: nil)
            #expect(junk.status == 422 && !junk.body.contains("<script>"))
            let paid = try await Self.pay(server, path, email: "eve@example.com", currency: "EUR")
            #expect(paid.status == 303)
            let success = try await server.send(.get, try #require(paid.headers[.location]), key: nil)
            #expect(success.body.contains("€4.49 / month"), "the success page says what was paid, with the period")
            let purchase = try #require(try await server.deps.store.purchases(appID: app.id, email: "eve@example.com").first)
            #expect(purchase.price == (try Price(text: "4.49", currency: "EUR")))
            let info = try await server.send(.get, "/v1/subscribers/eve", key: app.publicSandbox).object()
            #expect(info.value(at: "subscriber.subscriptions.monthly.price.currency") as? String == "EUR")
        }
    }

    /// Stripe configured: a new price gets its Stripe Price (`POST /v1/prices`, Stripe's units, the recurring
    /// interval), the Checkout Session names it, and a trial is sent as `subscription_data[trial_period_days]`.
    @Test(arguments: TestDatabases.available)
    func stripePricesAndTrialsReachStripe(_ backend: TestBackend) async throws {
        try await StripeCheckoutTests.withFakeStripe { base, recorded in
            let stripe = try StripeSettings(secretKey: "sk_test_123", apiBase: base)
            try await TestServer.with(backend, stripe: stripe) { server in
                let app = try await CheckoutTests.shop(server)
                let added = try await Self.addPrice(server, app, "monthly", "JPY", "700")
                #expect(added.status == 200)
                let made = recorded.withLockedValue { $0.filter { $0.path == "/v1/prices" } }
                let yen = try #require(made.first { $0.form["currency"] == "jpy" })
                #expect(
                    yen.form["unit_amount"] == "700" && yen.form["recurring[interval]"] == "month" && yen.form["recurring[interval_count]"] == "1")
                #expect(yen.form["product_data[name]"] == "Pro Monthly")
                #expect(made.contains { $0.form["currency"] == "usd" && $0.form["unit_amount"] == "499" }, "the default gets one too")
                let ids = try #require(try added.object()["prices"] as? [[String: any Sendable]]).compactMap { $0["stripe_price_id"] as? String }
                #expect(ids.count == 2 && ids.allSatisfy { $0.hasPrefix("price_fake") })
                // Set again unchanged: no new Stripe Price.
                _ = try await Self.addPrice(server, app, "monthly", "JPY", "700")
                #expect(recorded.withLockedValue { $0.filter { $0.path == "/v1/prices" }.count } == 2)
                _ = try await Self.setTrial(server, app, "monthly", days: 14)
                #expect(try await server.send(.get, "/p/\(app.id)/monthly/kai?currency=JPY", key: nil).status == 303)
                let session = try #require(recorded.withLockedValue { $0.last { $0.path == "/v1/checkout/sessions" } })
                let jpyID =
                    try #require(
                        try added.object()["prices"] as? [[String: any Sendable]]
                    ).first { $0["currency"] as? String == "JPY" }?["stripe_price_id"] as? String
                #expect(session.form["line_items[0][price]"] == jpyID)
                #expect(session.form["line_items[0][price_data][unit_amount]"] == nil)
                #expect(session.form["subscription_data[trial_period_days]"] == "14")
                #expect(session.form["metadata[redeem_trial_days]"] == "14")
                // Someone who had the product pays at once: no trial in their session.
                _ = try await server.grant(
                    app,
                    #"{"app_user_id": "old", "product_id": "monthly", "purchase_date": "2026-01-01T00:00:00Z", "expires_date": "2026-02-01T00:00:00Z"}"#
                )
                #expect(try await server.send(.get, "/p/\(app.id)/monthly/old", key: nil).status == 303)
                let again = try #require(recorded.withLockedValue { $0.last { $0.path == "/v1/checkout/sessions" } })
                #expect(again.form["subscription_data[trial_period_days]"] == nil)
            }
        }
    }

    /// A sandbox trial: Customer Info says `trial`, the accelerated clock converts it (RENEWAL with
    /// `is_trial_conversion`), and a second trial for the same address pays at once.
    @Test(arguments: TestDatabases.available)
    func sandboxTrialsConvertOnTheAcceleratedClock(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await CheckoutTests.shop(server)
            _ = try await server.send(.post, "/admin/v1/apps/\(app.id)/webhooks", key: app.secret, json: #"{"url": "http://127.0.0.1:9/x"}"#)
            _ = try await Self.setTrial(server, app, "monthly", days: 7)
            let page = try await server.send(.get, "/sandbox/p/\(app.id)/monthly/tia", key: nil)
            #expect(page.body.contains("7-day free trial"))
            let started = try await server.landing(try await Self.pay(server, "/sandbox/p/\(app.id)/monthly/tia", email: "tia@example.com"))
            #expect(started.body.contains("Free trial, then $4.99 / month"))
            var info = try await server.send(.get, "/v1/subscribers/tia", key: app.publicSandbox).object()
            #expect(info.value(at: "subscriber.subscriptions.monthly.period_type") as? String == "trial")
            let trialEnd = TestServer.start.addingTimeInterval(SandboxClock.trialLength)
            #expect(info.value(at: "subscriber.subscriptions.monthly.expires_date") as? String == ISODate.format(trialEnd))
            // The same address under another app user ID: no second trial.
            #expect(try await Self.pay(server, "/sandbox/p/\(app.id)/monthly/tia2", email: "TIA@example.com").status == 303)
            let second = try await server.send(.get, "/v1/subscribers/tia2", key: app.publicSandbox).object()
            #expect(second.value(at: "subscriber.subscriptions.monthly.period_type") as? String == "normal")
            let worker = SandboxRenewalWorker(store: server.deps.store, clock: clock, logger: Logger(label: "test"))
            #expect(await worker.renewDue() == 0, "not over yet")
            clock.advance(by: SandboxClock.trialLength + 1)
            #expect(await worker.renewDue() >= 1)
            info = try await server.send(.get, "/v1/subscribers/tia", key: app.publicSandbox).object()
            #expect(info.value(at: "subscriber.subscriptions.monthly.period_type") as? String == "normal")
            #expect(info.value(at: "subscriber.subscriptions.monthly.expires_date") as? String == ISODate.format(trialEnd.addingTimeInterval(300)))
            #expect(info.value(at: "subscriber.subscriptions.monthly.price.amount") as? Double == 4.99)
            let deliveries = try await server.deps.store.webhookDeliveries(appID: app.id)
            let initial = try #require(deliveries.first { $0.eventType == "INITIAL_PURCHASE" && $0.body.contains("\"tia\"") })
            #expect(initial.body.contains(#""period_type":"TRIAL""#))
            let conversion = try #require(deliveries.first { $0.eventType == "RENEWAL" && $0.body.contains("\"tia\"") })
            #expect(conversion.body.contains(#""is_trial_conversion":true"#) && conversion.body.contains(#""period_type":"NORMAL""#))
        }
    }

    /// A Stripe trial: recorded as a trial from the session's metadata, converted by `customer.subscription.updated`
    /// (trialing → active) once, even when the first invoice's event comes too.
    @Test(arguments: TestDatabases.available)
    func stripeTrialsConvertWhenTheSubscriptionTurnsActive(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, stripeWebhookSecret: StripeWebhookTests.secret) { server in
            let app = try await CheckoutTests.shop(server)
            _ = try await server.send(.post, "/admin/v1/apps/\(app.id)/webhooks", key: app.secret, json: #"{"url": "http://127.0.0.1:9/x"}"#)
            let session = StripeWebhookTests.session(
                "trial1", app: app.id, product: "monthly", mode: "subscription", subscription: "sub_trial", paymentIntent: nil,
                status: "no_payment_required", user: "sam"
            ).replacingOccurrences(of: #""campaign": "fall""#, with: #""redeem_trial_days": "7""#)
                .replacingOccurrences(of: #""amount_total": 499"#, with: #""amount_total": 0"#)
            #expect(try await StripeWebhookTests.post(server, session).status == 200)
            var info = try await server.send(.get, "/v1/subscribers/sam", key: app.publicSandbox).object()
            #expect(info.value(at: "subscriber.subscriptions.monthly.period_type") as? String == "trial")
            #expect(
                info.value(at: "subscriber.subscriptions.monthly.expires_date") as? String
                    == ISODate.format(TrialRules.trialEnd(days: 7, from: StripeWebhookTests.start)))
            let trialing = StripeWebhookTests.subscription(
                "u1", type: "customer.subscription.updated", subscription: "sub_trial", cancelAtPeriodEnd: false, status: "trialing")
            #expect(try await StripeWebhookTests.post(server, trialing).status == 200)
            info = try await server.send(.get, "/v1/subscribers/sam", key: app.publicSandbox).object()
            #expect(info.value(at: "subscriber.subscriptions.monthly.period_type") as? String == "trial", "still trialing")
            let active = StripeWebhookTests.subscription(
                "u2", type: "customer.subscription.updated", subscription: "sub_trial", cancelAtPeriodEnd: false, status: "active")
            #expect(try await StripeWebhookTests.post(server, active).status == 200)
            let invoice = StripeWebhookTests.invoice(
                "i2", type: "invoice.paid", subscription: "sub_trial", reason: "subscription_cycle",
                periodEnd: StripeWebhookTests.start.addingTimeInterval(86_400 * 37))
            #expect(try await StripeWebhookTests.post(server, invoice).status == 200)
            info = try await server.send(.get, "/v1/subscribers/sam", key: app.publicSandbox).object()
            #expect(info.value(at: "subscriber.subscriptions.monthly.period_type") as? String == "normal")
            let types = try await server.deps.store.webhookDeliveries(appID: app.id)
            let conversions = types.filter { $0.eventType == "RENEWAL" && $0.body.contains(#""is_trial_conversion":true"#) }
            #expect(conversions.count == 1)
            #expect(types.contains { $0.eventType == "INITIAL_PURCHASE" && $0.body.contains(#""period_type":"TRIAL""#) })
        }
    }
}
