import Foundation
import HTTPTypes
import RedeemCore
import RedeemServer
import RedeemTestSupport
import Testing

/// The JSON purchase API: a web app starts a checkout, follows its status, and gets `redemption_info` on success.
@Suite struct WebCheckoutsTests {
    @Test(arguments: TestDatabases.available)
    func sandboxCheckoutFromStartToRedemptionInfo(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            let started = try await server.send(
                .post, "/v1/web_checkouts", key: app.publicSandbox,
                json: #"{"product_id": "monthly", "email": "web@example.com", "metadata": {"ref": "landing"}}"#)
            #expect(started.status == 201, "\(started.body)")
            let id = try #require(try started.string("id"))
            #expect(try started.string("status") == "started")
            let url = try #require(try started.string("checkout_url").flatMap(URLComponents.init(string:)))
            #expect(url.path == "/sandbox/p/\(app.id)/monthly")
            #expect(url.queryItems?.contains(URLQueryItem(name: "checkout_id", value: id)) == true)
            #expect(try await server.send(.get, "/v1/web_checkouts/\(id)", key: app.publicSandbox).string("status") == "started")
            // The buyer opens the page and pays.
            let page = try await server.send(.get, url.path + "?" + (url.percentEncodedQuery ?? ""), key: nil)
            #expect(try CheckoutTests.checkoutID(page) == id)
            #expect(try await server.send(.get, "/v1/web_checkouts/\(id)", key: app.publicSandbox).string("status") == "in_progress")
            let paid = try await server.send(
                .post, url.path, key: nil, json: "email=web%40example.com&checkout_id=\(id)&param.ref=landing",
                headers: CheckoutTests.form)
            #expect(try await server.landing(paid).status == 200)
            let done = try await server.send(.get, "/v1/web_checkouts/\(id)", key: app.publicSandbox)
            #expect(try done.string("status") == "succeeded")
            let link = try #require(try done.string("redemption_info.redemption_https_url"))
            #expect(try done.string("redemption_info.redemption_url")?.hasPrefix("\(app.scheme)://redeem_web_purchase?redemption_token=") == true)
            #expect(try done.string("redemption_info.expires_at") != nil)
            let token = String(try #require(link.split(separator: "/").last))
            #expect(try await RedemptionAPITests.redeem(server, app, user: "web-user", token: token).status == 200)
            // Another app's key sees nothing.
            let other = try await CheckoutTests.shop(server)
            #expect(try await server.send(.get, "/v1/web_checkouts/\(id)", key: other.publicSandbox).status == 404)
        }
    }

    /// An identified buyer who already holds the product is refused before anything starts, as a purchase link
    /// refuses them: in production no Stripe session is made, so they are never charged twice.
    @Test(arguments: TestDatabases.available) func whatTheBuyerHoldsIsRefusedBeforeCheckout(_ backend: TestBackend) async throws {
        try await StripeCheckoutTests.withFakeStripe { base, recorded in
            let stripe = try StripeSettings(secretKey: "sk_test_123", apiBase: base)
            try await TestServer.with(backend, stripeWebhookSecret: StripeWebhookTests.secret, stripe: stripe) { server in
                let app = try await CheckoutTests.shop(server)
                _ = try await server.grant(app, #"{"app_user_id": "erin", "product_id": "lifetime"}"#)
                _ = try await server.grant(
                    app, #"{"app_user_id": "erin", "product_id": "monthly", "store": "stripe", "expires_date": "2999-01-01T00:00:00Z"}"#)
                for (key, product, message) in [
                    (app.publicProduction, "lifetime", "You already own lifetime."),
                    (app.publicSandbox, "lifetime", "You already own lifetime."),
                    (app.publicProduction, "monthly", "You already have an active Pro Monthly subscription."),
                ] {
                    let refused = try await server.send(
                        .post, "/v1/web_checkouts", key: key, json: #"{"product_id": "\#(product)", "app_user_id": "erin"}"#)
                    #expect(refused.status == 409, "\(product): \(refused.body)")
                    #expect(try refused.string("message") == message)
                }
                #expect(recorded.withLockedValue { $0.isEmpty }, "no Stripe session was made")
                for body in [#"{"product_id": "lifetime", "app_user_id": "frank"}"#, #"{"product_id": "lifetime"}"#] {
                    #expect(try await server.send(.post, "/v1/web_checkouts", key: app.publicProduction, json: body).status == 201, "\(body)")
                }
            }
        }
    }

    @Test(arguments: TestDatabases.available) func productionCheckoutsNeedStripeAndReportFailures(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            let refused = try await server.send(.post, "/v1/web_checkouts", key: app.publicProduction, json: #"{"product_id": "monthly"}"#)
            #expect(refused.status == 503)
            #expect(try await server.send(.post, "/v1/web_checkouts", key: app.publicSandbox, json: #"{"product_id": "nope"}"#).status == 404)
        }
        try await StripeCheckoutTests.withFakeStripe { base, recorded in
            let stripe = try StripeSettings(secretKey: "sk_test_123", apiBase: base)
            try await TestServer.with(backend, stripeWebhookSecret: StripeWebhookTests.secret, stripe: stripe) { server in
                let app = try await CheckoutTests.shop(server)
                let started = try await server.send(
                    .post, "/v1/web_checkouts", key: app.publicProduction, json: #"{"product_id": "lifetime", "app_user_id": "erin"}"#,
                    headers: [.acceptLanguage: "ja-JP"])
                #expect(started.status == 201)
                #expect(recorded.withLockedValue { $0.first?.form["metadata[redeem_language]"] } == "ja", "the browser's, for the receipt")
                #expect(try started.string("status") == "in_progress")
                #expect(try started.string("checkout_url") == "https://checkout.stripe.com/c/pay/cs_test_fake123456")
                let id = try #require(try started.string("id"))
                #expect(recorded.withLockedValue { $0.first?.form["metadata[redeem_checkout_id]"] } == id)
                let failed = StripeWebhookTests.session(
                    "f1", app: app.id, product: "lifetime", mode: "payment", subscription: nil,
                    paymentIntent: "pi_f", status: "unpaid", type: "checkout.session.async_payment_failed", user: "erin"
                )
                .replacingOccurrences(of: #""campaign": "fall""#, with: #""redeem_checkout_id": "\#(id)""#)
                #expect(try await StripeWebhookTests.post(server, failed).status == 200)
                #expect(try await server.send(.get, "/v1/web_checkouts/\(id)", key: app.publicProduction).string("status") == "failed")
            }
        }
    }
}
