import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import RedeemCore
import RedeemServer
import RedeemStripe
import RedeemTestSupport
import Testing

/// Production purchase links create Stripe Checkout Sessions; a fake Stripe API on loopback stands in for Stripe.
@Suite struct StripeCheckoutTests {
    struct Recorded: Sendable {
        let headers: HTTPFields
        let form: [String: String]
        var path = "/v1/checkout/sessions"
    }

    /// Runs a fake `POST /v1/checkout/sessions` that records requests and answers like Stripe.
    static func withFakeStripe(_ body: @escaping @Sendable (URL, NIOLockedValueBox<[Recorded]>) async throws -> Void) async throws {
        let recorded = NIOLockedValueBox<[Recorded]>([])
        let router = Router()
        router.post("/v1/checkout/sessions") { request, _ -> Response in
            let buffer = try await request.body.collect(upTo: 1 << 20)
            let pairs = String(buffer: buffer).split(separator: "&").map {
                $0.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            }
            let form = Dictionary(pairs.map { ($0[0], $0.count > 1 ? $0[1] : "") }, uniquingKeysWith: { a, _ in a })
            recorded.withLockedValue { $0.append(Recorded(headers: request.headers, form: form)) }
            let json = #"{"id": "cs_test_fake123456", "object": "checkout.session", "url": "https://checkout.stripe.com/c/pay/cs_test_fake123456"}"#
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
        }
        // `POST /v1/prices`: a Price per request, numbered, as Stripe answers one.
        router.post("/v1/prices") { request, _ -> Response in
            let buffer = try await request.body.collect(upTo: 1 << 20)
            let pairs = String(buffer: buffer).split(separator: "&").map {
                $0.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            }
            let form = Dictionary(pairs.map { ($0[0], $0.count > 1 ? $0[1] : "") }, uniquingKeysWith: { a, _ in a })
            let count = recorded.withLockedValue {
                $0.append(Recorded(headers: request.headers, form: form, path: "/v1/prices"))
                return $0.filter { $0.path == "/v1/prices" }.count
            }
            let json = #"{"id": "price_fake\#(count)", "object": "price", "currency": "\#(form["currency"] ?? "")"}"#
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
        }
        let fake = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await fake.test(.live) { client in
            try await body(URL(string: "http://127.0.0.1:\(try #require(client.port))")!, recorded)
        }
    }

    @Test(arguments: TestDatabases.available) func productionLinksGoToStripeAndComeBackToTheRedemptionStep(_ backend: TestBackend) async throws {
        try await Self.withFakeStripe { base, recorded in
            let stripe = try StripeSettings(secretKey: "sk_test_123", apiBase: base)
            try await TestServer.with(backend, stripeWebhookSecret: StripeWebhookTests.secret, stripe: stripe) { server in
                let app = try await CheckoutTests.shop(server)
                let reply = try await server.send(.get, "/p/\(app.id)/monthly?email=buyer%40example.com&campaign=spring", key: nil)
                #expect(reply.status == 303)
                #expect(reply.headers[.location] == "https://checkout.stripe.com/c/pay/cs_test_fake123456")
                let request = try #require(recorded.withLockedValue { $0.first })
                #expect(request.headers[.authorization] == "Bearer sk_test_123")
                #expect(request.headers[HTTPField.Name("Stripe-Version")!] == StripeAPI.version)
                #expect(request.form["mode"] == "subscription")
                #expect(request.form["line_items[0][price_data][unit_amount]"] == "499")
                #expect(request.form["line_items[0][price_data][currency]"] == "usd")
                #expect(request.form["line_items[0][price_data][recurring][interval]"] == "month")
                #expect(request.form["metadata[app_id]"] == app.id)
                #expect(request.form["metadata[product_id]"] == "monthly")
                #expect(request.form["metadata[campaign]"] == "spring")
                #expect(request.form["metadata[redeem_language]"] == "en", "the page's language, for the purchase's e-mails")
                #expect(request.form["customer_email"] == "buyer@example.com")
                #expect(request.form["success_url"] == "https://pay.example.com/checkout/\(app.id)/monthly/success?session_id={CHECKOUT_SESSION_ID}")
                #expect(request.form["automatic_tax[enabled]"] == nil && request.form["allow_promotion_codes"] == nil, "off by default")
                let japanese = try await server.send(
                    .get, "/p/\(app.id)/monthly?email=buyer%40example.com", key: nil, headers: [.acceptLanguage: "ja-JP,ja;q=0.9"])
                #expect(japanese.status == 303)
                #expect(recorded.withLockedValue { $0.last?.form["metadata[redeem_language]"] } == "ja")
                // A parameter Stripe's metadata cannot hold (keys of at most 40 characters) is the link's fault: 422, not 500.
                let sent = recorded.withLockedValue { $0.count }
                let long = try await server.send(.get, "/p/\(app.id)/monthly?\(String(repeating: "k", count: 41))=v", key: nil)
                #expect(long.status == 422 && long.headers[.contentType]?.hasPrefix("text/html") == true && long.body.contains("metadata"))
                #expect(recorded.withLockedValue { $0.count } == sent, "nothing reached Stripe")
                // Back from Stripe before the webhook: the page waits.
                let early = try await server.send(.get, "/checkout/\(app.id)/monthly/success?session_id=cs_test_fake123456", key: nil)
                #expect(early.status == 200)
                #expect(early.body.contains("Finishing your purchase"))
                // The webhook records it; the same page now shows the redemption step.
                let event = StripeWebhookTests.session(
                    "fake123456", app: app.id, product: "monthly", mode: "subscription",
                    subscription: "sub_fake", paymentIntent: nil)
                #expect(try await StripeWebhookTests.post(server, event).status == 200)
                let done = try await server.landing(
                    try await server.send(.get, "/checkout/\(app.id)/monthly/success?session_id=cs_test_fake123456", key: nil))
                #expect(done.body.contains("Thank you"))
                #expect(done.body.contains("\(app.scheme)://redeem_web_purchase?redemption_token="))
                // Opened again (the back button), the return mints no second link and says where the first one is.
                let purchase = try #require(try await server.deps.store.purchase(appID: app.id, checkoutReference: "cs_test_fake123456"))
                let linksBefore = try await server.deps.store.redemptionLinks(appID: app.id, purchaseID: purchase.id).count
                let again = try await server.send(.get, "/checkout/\(app.id)/monthly/success?session_id=cs_test_fake123456", key: nil)
                #expect(again.status == 200)
                #expect(again.body.contains("Your link was shown already"))
                #expect(!again.body.contains("redemption_token="))
                #expect(try await server.deps.store.redemptionLinks(appID: app.id, purchaseID: purchase.id).count == linksBefore)
            }
        }
    }

    /// Stripe Tax and Stripe promotion codes, per app (and promotion codes per link), as Stripe documents the
    /// Checkout Session parameters: `automatic_tax[enabled]`, `billing_address_collection`, `allow_promotion_codes`.
    @Test(arguments: TestDatabases.available) func taxAndPromotionCodesReachStripeCheckout(_ backend: TestBackend) async throws {
        try await Self.withFakeStripe { base, recorded in
            let stripe = try StripeSettings(secretKey: "sk_test_123", apiBase: base)
            try await TestServer.with(backend, stripe: stripe) { server in
                let app = try await CheckoutTests.shop(server, settings: #", "checkout_tax": "stripe_tax""#)
                _ = try await server.send(.get, "/p/\(app.id)/lifetime?allow_promotion_codes=true", key: nil)
                let taxed = try #require(recorded.withLockedValue { $0.last })
                #expect(taxed.form["automatic_tax[enabled]"] == "true" && taxed.form["billing_address_collection"] == "required")
                #expect(taxed.form["allow_promotion_codes"] == "true", "turned on by the link")
                #expect(taxed.form["metadata[allow_promotion_codes]"] == nil, "a setting, not a custom parameter")
                let off = try await server.send(
                    .patch, "/admin/v1/apps/\(app.id)", key: app.secret, json: #"{"checkout_tax": "none", "allow_promotion_codes": true}"#)
                #expect(try off.string("checkout_tax") == "none" && off.object()["allow_promotion_codes"] as? Bool == true)
                _ = try await server.send(.get, "/p/\(app.id)/lifetime", key: nil)
                let plain = try #require(recorded.withLockedValue { $0.last })
                #expect(plain.form["automatic_tax[enabled]"] == nil && plain.form["allow_promotion_codes"] == "true", "the app's setting")
                let bad = try await server.send(.patch, "/admin/v1/apps/\(app.id)", key: app.secret, json: #"{"checkout_tax": "vat"}"#)
                #expect(bad.status == 422 && bad.body.contains("checkout_tax"))
            }
        }
    }

    /// Stripe Managed Payments per app, as Stripe documents the Checkout Session for it: `managed_payments[enabled]`,
    /// the app's product tax code (on the inline price, or on the Stripe Price's product: a new code forgets the Prices
    /// made before it), none of the tax parameters Stripe then manages, and API version 2025-03-31.basil for that
    /// request only.
    @Test(arguments: TestDatabases.available) func managedPaymentsReachStripeCheckout(_ backend: TestBackend) async throws {
        try await Self.withFakeStripe { base, recorded in
            let stripe = try StripeSettings(secretKey: "sk_test_123", apiBase: base)
            try await TestServer.with(backend, stripe: stripe) { server in
                let app = try await CheckoutTests.shop(server)
                let refused = try await server.send(
                    .patch, "/admin/v1/apps/\(app.id)", key: app.secret, json: #"{"checkout_tax": "managed_payments"}"#)
                #expect(refused.status == 422 && refused.body.contains("stripe_tax_code"), "\(refused.body)")
                let badCode = try await server.send(.patch, "/admin/v1/apps/\(app.id)", key: app.secret, json: #"{"stripe_tax_code": "10000000"}"#)
                #expect(badCode.status == 422 && badCode.body.contains("stripe_tax_code"))
                // A price set with Stripe configured gets its Stripe Price, made without a tax code.
                #expect(try await WebBillingTests.addPrice(server, app, "monthly", "EUR", "4.49").status == 200)
                let chosen = try await server.send(
                    .patch, "/admin/v1/apps/\(app.id)", key: app.secret,
                    json: #"{"checkout_tax": "managed_payments", "stripe_tax_code": "txcd_10000000"}"#)
                #expect(chosen.status == 200)
                #expect(try chosen.string("checkout_tax") == "managed_payments" && chosen.string("stripe_tax_code") == "txcd_10000000")

                #expect(try await server.send(.get, "/p/\(app.id)/monthly?currency=EUR", key: nil).status == 303)
                let session = try #require(recorded.withLockedValue { $0.last { $0.path == "/v1/checkout/sessions" } })
                #expect(session.headers[HTTPField.Name("Stripe-Version")!] == "2025-03-31.basil")
                #expect(session.form["managed_payments[enabled]"] == "true")
                #expect(session.form["line_items[0][price_data][product_data][tax_code]"] == "txcd_10000000")
                #expect(
                    session.form["line_items[0][price_data][currency]"] == "eur" && session.form["line_items[0][price_data][unit_amount]"] == "449")
                #expect(session.form["line_items[0][price]"] == nil, "the Stripe Price made before the tax code is forgotten")
                #expect(session.form["automatic_tax[enabled]"] == nil && session.form["billing_address_collection"] == nil)
                let forgotten = try await server.send(.get, "/admin/v1/apps/\(app.id)/products/monthly/prices", key: app.secret).object()
                #expect((forgotten["prices"] as? [[String: Any]])?.allSatisfy { $0["stripe_price_id"] == nil } == true)

                // Set again, the prices get Stripe Prices made with the tax code, and the session names them.
                #expect(try await WebBillingTests.addPrice(server, app, "monthly", "EUR", "4.49").status == 200)
                let made = try #require(recorded.withLockedValue { $0.last { $0.path == "/v1/prices" && $0.form["currency"] == "eur" } })
                #expect(made.form["product_data[tax_code]"] == "txcd_10000000")
                #expect(try await server.send(.get, "/p/\(app.id)/monthly?currency=EUR", key: nil).status == 303)
                let named = try #require(recorded.withLockedValue { $0.last { $0.path == "/v1/checkout/sessions" } })
                #expect(named.form["line_items[0][price]"]?.hasPrefix("price_fake") == true)
                #expect(named.form["line_items[0][price_data][unit_amount]"] == nil && named.form["managed_payments[enabled]"] == "true")

                // Stripe Tax takes the tax code too; the request keeps the pinned version.
                _ = try await server.send(.patch, "/admin/v1/apps/\(app.id)", key: app.secret, json: #"{"checkout_tax": "stripe_tax"}"#)
                _ = try await server.send(.get, "/p/\(app.id)/lifetime", key: nil)
                let taxed = try #require(recorded.withLockedValue { $0.last { $0.path == "/v1/checkout/sessions" } })
                #expect(taxed.headers[HTTPField.Name("Stripe-Version")!] == StripeAPI.version)
                #expect(taxed.form["automatic_tax[enabled]"] == "true" && taxed.form["managed_payments[enabled]"] == nil)
                #expect(taxed.form["line_items[0][price_data][product_data][tax_code]"] == "txcd_10000000")
            }
        }
    }

    @Test(arguments: TestDatabases.available) func withoutAKeyProductionLinksSaySo(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            #expect(try await server.send(.get, "/p/\(app.id)/monthly", key: nil).status == 503)
        }
    }
}

@Suite struct PaidCheckoutRefusalTests {
    @Test(arguments: TestDatabases.available) func aBuyerWhoOwnsTheProductIsNotSentToStripe(_ backend: TestBackend) async throws {
        try await StripeCheckoutTests.withFakeStripe { base, recorded in
            let stripe = try StripeSettings(secretKey: "sk_test_123", apiBase: base)
            try await TestServer.with(backend, stripe: stripe) { server in
                let app = try await CheckoutTests.shop(server)
                _ = try await server.grant(app, #"{"app_user_id": "owner", "product_id": "lifetime"}"#)
                #expect(try await server.send(.get, "/p/\(app.id)/lifetime/owner", key: nil).status == 409)
                #expect(recorded.withLockedValue { $0.isEmpty })
                #expect(try await server.send(.get, "/p/\(app.id)/lifetime/newcomer", key: nil).status == 303)
            }
        }
    }
}
