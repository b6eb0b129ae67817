import Foundation
import HTTPTypes
import RedeemCore
import RedeemServer
import RedeemStripe
import RedeemTestSupport
import Testing

/// Stripe events, shaped like Stripe's and signed here with Stripe's scheme, posted to the real route.
@Suite struct StripeWebhookTests {
    static let secret = "whsec_test_0123456789abcdef"
    static let start = TestServer.start

    static func session(
        _ id: String, app: String, product: String, mode: String, subscription: String?, paymentIntent: String?,
        status: String = "paid", type: String = "checkout.session.completed", user: String = ""
    ) -> String {
        """
        {"id": "evt_\(id)", "object": "event", "type": "\(type)", "created": \(Int(start.timeIntervalSince1970)), "livemode": false,
         "api_version": "2024-06-20", "data": {"object": {"id": "cs_test_\(id)", "object": "checkout.session", "mode": "\(mode)",
         "payment_status": "\(status)", "customer": "cus_1", "subscription": \(subscription.map { "\"\($0)\"" } ?? "null"),
         "payment_intent": \(paymentIntent.map { "\"\($0)\"" } ?? "null"), "client_reference_id": null,
         "metadata": {"app_id": "\(app)", "product_id": "\(product)", "app_user_id": "\(user)", "campaign": "fall"},
         "customer_details": {"email": "payer@example.com"}, "customer_email": null, "amount_total": 499, "currency": "usd",
         "created": \(Int(start.timeIntervalSince1970))}}}
        """
    }

    static func invoice(_ id: String, type: String, subscription: String, reason: String, periodEnd: Date) -> String {
        """
        {"id": "evt_\(id)", "object": "event", "type": "\(type)", "created": \(Int(start.timeIntervalSince1970)), "livemode": false,
         "data": {"object": {"id": "in_\(id)", "object": "invoice", "subscription": "\(subscription)", "billing_reason": "\(reason)",
         "customer": "cus_1", "status": "paid", "amount_paid": 499, "currency": "usd",
         "lines": {"object": "list", "data": [{"id": "il_1", "amount": 499, "period": {"start": \(Int(start.timeIntervalSince1970)), "end": \(Int(periodEnd.timeIntervalSince1970))}}]},
         "status_transitions": {"paid_at": \(Int(start.timeIntervalSince1970))}}}}
        """
    }

    static func subscription(
        _ id: String, type: String, subscription: String, cancelAtPeriodEnd: Bool, status: String = "active", endedAt: Date? = nil,
        feedback: String? = nil, cancelAt: Date? = nil, price: String? = nil, periodEnd: Date? = nil
    ) -> String {
        """
        {"id": "evt_\(id)", "object": "event", "type": "\(type)", "created": \(Int(start.timeIntervalSince1970)), "livemode": false,
         "data": {"object": {"id": "\(subscription)", "object": "subscription", "status": "\(status)", "customer": "cus_1",
         "cancellation_details": {"comment": null, "feedback": \(feedback.map { "\"\($0)\"" } ?? "null"), "reason": \(cancelAtPeriodEnd ? "\"cancellation_requested\"" : "null")},
         "cancel_at_period_end": \(cancelAtPeriodEnd), "cancel_at": \(cancelAt.map { String(Int($0.timeIntervalSince1970)) } ?? "null"), "canceled_at": null, "current_period_end": \(Int((periodEnd ?? start.addingTimeInterval(86_400 * 30)).timeIntervalSince1970)),
         "ended_at": \(endedAt.map { String(Int($0.timeIntervalSince1970)) } ?? "null"), "metadata": {}, "items": {"object": "list", "data": [\(price.map { #"{"id": "si_1", "price": \#($0)}"# } ?? "")]}}}}
        """
    }

    static func refund(_ id: String, paymentIntent: String) -> String {
        """
        {"id": "evt_\(id)", "object": "event", "type": "charge.refunded", "created": \(Int(start.timeIntervalSince1970)), "livemode": false,
         "data": {"object": {"id": "ch_\(id)", "object": "charge", "payment_intent": "\(paymentIntent)", "invoice": null,
         "amount": 499, "amount_refunded": 499, "refunded": true, "currency": "usd"}}}
        """
    }

    static func post(_ server: TestServer, _ body: String, header: String? = nil) async throws -> TestServer.Reply {
        let signature = header ?? StripeSignature.header(payload: Array(body.utf8), secret: secret, timestamp: server.deps.clock.now())
        return try await server.send(.post, "/webhooks/stripe", key: nil, json: body, headers: [HTTPField.Name("Stripe-Signature")!: signature])
    }

    static func purchase(_ server: TestServer, _ app: CreatedAppKeys, transaction: String) async throws -> Purchase? {
        try await server.deps.store.purchases(appID: app.id, email: "payer@example.com").first { $0.storeTransactionID == transaction }
    }

    @Test(arguments: TestDatabases.available) func signaturesAreCheckedBeforeAnythingElse(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, stripeWebhookSecret: Self.secret) { server in
            let app = try await server.createAppWithCatalog()
            let body = Self.session("a", app: app.id, product: "monthly", mode: "subscription", subscription: "sub_a", paymentIntent: nil)
            let now = server.deps.clock.now()
            let good = StripeSignature.header(payload: Array(body.utf8), secret: Self.secret, timestamp: now)
            let cases = [
                (body + " ", good),  // tampered body
                (body, StripeSignature.header(payload: Array(body.utf8), secret: "whsec_wrong", timestamp: now)),  // wrong secret
                (body, StripeSignature.header(payload: Array(body.utf8), secret: Self.secret, timestamp: now.addingTimeInterval(-301))),  // stale
                (body, "t=\(Int(now.timeIntervalSince1970))"),  // no v1
                (body, "garbage"),
            ]
            for (payload, header) in cases {
                let reply = try await Self.post(server, payload, header: header)
                #expect(reply.status == 400, "\(header)")
            }
            #expect(try await Self.purchase(server, app, transaction: "sub_a") == nil)
            // Several v1 values (a rolled secret): one match is enough. Small clock skew is fine.
            let skewed = StripeSignature.header(payload: Array(body.utf8), secret: Self.secret, timestamp: now.addingTimeInterval(-200))
            let rolled = skewed + ",v1=" + String(repeating: "0", count: 64)
            #expect(try await Self.post(server, body, header: rolled).status == 200)
            #expect(try await Self.purchase(server, app, transaction: "sub_a") != nil)
        }
    }

    @Test(arguments: TestDatabases.available)
    func subscriptionLifecycle(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, stripeWebhookSecret: Self.secret) { server in
            let app = try await server.createAppWithCatalog()
            let renewal = Self.invoice(
                "renew", type: "invoice.paid", subscription: "sub_1", reason: "subscription_cycle",
                periodEnd: Self.start.addingTimeInterval(86_400 * 60))
            // Out of order: the renewal comes before the purchase; Stripe is asked to send it again.
            #expect(try await Self.post(server, renewal).status == 503)
            let checkout = Self.session("buy", app: app.id, product: "monthly", mode: "subscription", subscription: "sub_1", paymentIntent: nil)
            let first = try await Self.post(server, checkout)
            #expect(first.status == 200)
            #expect(try first.object()["duplicate"] as? Bool == false)
            let again = try await Self.post(server, checkout)
            #expect(try again.object()["duplicate"] as? Bool == true)
            var purchase = try #require(try await Self.purchase(server, app, transaction: "sub_1"))
            #expect(purchase.store == .stripe && purchase.isSandbox)
            #expect(purchase.price == Price(amountMicros: 4_990_000, currency: "USD"))
            #expect(purchase.customParams == ["campaign": "fall"])
            #expect(purchase.expiresDate == Self.start.addingTimeInterval(86_400 * 30))  // P1M from the purchase date (30 days in June)
            // Redelivered renewal now applies.
            #expect(try await Self.post(server, renewal).status == 200)
            purchase = try #require(try await Self.purchase(server, app, transaction: "sub_1"))
            #expect(purchase.expiresDate == Self.start.addingTimeInterval(86_400 * 60))
            _ = try await Self.post(
                server,
                Self.invoice("fail", type: "invoice.payment_failed", subscription: "sub_1", reason: "subscription_cycle", periodEnd: Self.start))
            #expect(try await Self.purchase(server, app, transaction: "sub_1")?.billingIssuesDetectedAt != nil)
            // The buyer's reason comes with Stripe's cancellation (from Redeem's portal or Stripe's own); a value
            // Redeem does not know is read as none, and the cancellation still applies.
            _ = try await Self.post(
                server,
                Self.subscription(
                    "cancel", type: "customer.subscription.updated", subscription: "sub_1", cancelAtPeriodEnd: true, feedback: "low_quality"))
            var cancelled = try #require(try await Self.purchase(server, app, transaction: "sub_1"))
            #expect(cancelled.unsubscribeDetectedAt != nil && cancelled.cancellationFeedback == .lowQuality)
            _ = try await Self.post(
                server, Self.subscription("uncancel", type: "customer.subscription.updated", subscription: "sub_1", cancelAtPeriodEnd: false))
            cancelled = try #require(try await Self.purchase(server, app, transaction: "sub_1"))
            #expect(cancelled.unsubscribeDetectedAt == nil && cancelled.cancellationFeedback == nil)
            _ = try await Self.post(
                server,
                Self.subscription(
                    "recancel", type: "customer.subscription.updated", subscription: "sub_1", cancelAtPeriodEnd: true, feedback: "bored"))
            cancelled = try #require(try await Self.purchase(server, app, transaction: "sub_1"))
            #expect(cancelled.unsubscribeDetectedAt != nil && cancelled.cancellationFeedback == nil)
            _ = try await Self.post(
                server, Self.subscription("unrecancel", type: "customer.subscription.updated", subscription: "sub_1", cancelAtPeriodEnd: false))
            // Scheduled in Stripe's dashboard for a date: `cancel_at`, with `cancel_at_period_end` false. It does not renew.
            _ = try await Self.post(
                server,
                Self.subscription(
                    "cancel-at", type: "customer.subscription.updated", subscription: "sub_1", cancelAtPeriodEnd: false,
                    cancelAt: Self.start.addingTimeInterval(86_400 * 10)))
            #expect(try await Self.purchase(server, app, transaction: "sub_1")?.unsubscribeDetectedAt != nil)
            _ = try await Self.post(
                server, Self.subscription("unschedule", type: "customer.subscription.updated", subscription: "sub_1", cancelAtPeriodEnd: false))
            #expect(try await Self.purchase(server, app, transaction: "sub_1")?.unsubscribeDetectedAt == nil)
            let ended = Self.start.addingTimeInterval(3600)
            _ = try await Self.post(
                server,
                Self.subscription(
                    "end", type: "customer.subscription.deleted", subscription: "sub_1", cancelAtPeriodEnd: false, status: "canceled", endedAt: ended)
            )
            #expect(try await Self.purchase(server, app, transaction: "sub_1")?.expiresDate == ended)
        }
    }

    @Test(arguments: TestDatabases.available) func oneTimePurchasesAndRefunds(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, stripeWebhookSecret: Self.secret) { server in
            let app = try await server.createAppWithCatalog()
            let pending = Self.session(
                "async", app: app.id, product: "lifetime", mode: "payment", subscription: nil, paymentIntent: "pi_1",
                status: "unpaid", user: "dora")
            #expect(try await Self.post(server, pending).status == 200)
            #expect(try await Self.purchase(server, app, transaction: "cs_test_async") == nil)  // no grant before payment
            let paid = Self.session(
                "async", app: app.id, product: "lifetime", mode: "payment", subscription: nil, paymentIntent: "pi_1",
                type: "checkout.session.async_payment_succeeded", user: "dora")
            #expect(try await Self.post(server, paid.replacingOccurrences(of: "evt_async", with: "evt_async_ok")).status == 200)
            let bought = try #require(try await Self.purchase(server, app, transaction: "cs_test_async"))
            let before = try await server.send(.get, "/v1/subscribers/dora", key: app.publicSandbox).object()
            #expect(before.value(at: "subscriber.entitlements.pro.product_identifier") as? String == "lifetime")
            #expect(try await Self.post(server, Self.refund("r1", paymentIntent: "pi_1")).status == 200)
            #expect(try await server.deps.store.purchase(appID: app.id, id: bought.id).refundedAt != nil)
            let after = try await server.send(.get, "/v1/subscribers/dora", key: app.publicSandbox).object()
            #expect((after.value(at: "subscriber.entitlements") as? [String: Any])?.isEmpty == true)
        }
    }

    /// A Stripe Price as a subscription item carries it.
    static func price(_ id: String, amount: Int, metadata: [String: String] = [:]) -> String {
        let fields = metadata.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \"\($0.value)\"" }.joined(separator: ", ")
        return #"{"id": "\#(id)", "object": "price", "currency": "usd", "unit_amount": \#(amount), "metadata": {\#(fields)}}"#
    }

    /// A plan switched in Stripe's Billing Portal or dashboard: the purchase becomes the product the new Price bills,
    /// once, with `PRODUCT_CHANGE`; a Price Redeem cannot place, or another app's, changes nothing.
    @Test(arguments: TestDatabases.available) func planSwitchedInStripe(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, stripeWebhookSecret: Self.secret) { server in
            let app = try await server.createAppWithCatalog()
            let annual = #"{"id": "annual", "type": "subscription", "period": "P1Y", "entitlements": ["pro", "extra"]}"#
            #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: annual).status == 201)
            try await SupportActionsTests.withEndpoint(server, app)
            let checkout = Self.session(
                "plan", app: app.id, product: "monthly", mode: "subscription", subscription: "sub_plan", paymentIntent: nil, user: "pat")
            #expect(try await Self.post(server, checkout).status == 200)
            func update(_ id: String, _ price: String, periodEnd: Date? = nil) async throws -> Purchase {
                let body = Self.subscription(
                    id, type: "customer.subscription.updated", subscription: "sub_plan", cancelAtPeriodEnd: false, price: price,
                    periodEnd: periodEnd)
                #expect(try await Self.post(server, body).status == 200)
                return try #require(try await Self.purchase(server, app, transaction: "sub_plan"))
            }
            // Prices Redeem cannot place: one without metadata, one of another app's product of the same ID.
            var purchase = try await update("unknown", Self.price("price_unknown", amount: 999))
            #expect(purchase.productID == "monthly")
            purchase = try await update(
                "other-app", Self.price("price_other", amount: 4999, metadata: ["app_id": "app_other", "product_id": "annual"]))
            #expect(purchase.productID == "monthly")

            // Upgraded to a yearly Price made in Stripe's dashboard, named by its metadata: a new period, the new price.
            let yearEnd = Self.start.addingTimeInterval(86_400 * 365)
            let upgrade = Self.subscription(
                "upgrade", type: "customer.subscription.updated", subscription: "sub_plan", cancelAtPeriodEnd: false,
                price: Self.price("price_dash_annual", amount: 4999, metadata: ["product_id": "annual"]), periodEnd: yearEnd)
            #expect(try await Self.post(server, upgrade).status == 200)
            purchase = try #require(try await Self.purchase(server, app, transaction: "sub_plan"))
            #expect(purchase.productID == "annual" && purchase.expiresDate == yearEnd)
            #expect(purchase.price == Price(amountMicros: 49_990_000, currency: "USD"))
            let info = try await server.send(.get, "/v1/subscribers/pat", key: app.publicSandbox).object()
            #expect(info.value(at: "subscriber.entitlements.extra.product_identifier") as? String == "annual")
            #expect(info.value(at: "subscriber.entitlements.pro.product_identifier") as? String == "annual")
            // Stripe sends it again: nothing more.
            #expect(try await Self.post(server, upgrade).status == 200)
            // Back to monthly through the Price Redeem made for its USD price (found by its ID, no metadata needed).
            _ = try await WebBillingTests.addPrice(server, app, "monthly", "USD", "4.99")
            try await server.deps.store.setStripePriceID(
                "price_made_monthly",
                for: ProductPrice(appID: app.id, productID: "monthly", price: Price(amountMicros: 4_990_000, currency: "USD"), isDefault: true))
            let monthEnd = Self.start.addingTimeInterval(86_400 * 30)
            purchase = try await update("downgrade", Self.price("price_made_monthly", amount: 499), periodEnd: monthEnd)
            #expect(purchase.productID == "monthly" && purchase.expiresDate == monthEnd)
            #expect(purchase.price == Price(amountMicros: 4_990_000, currency: "USD"))

            let changes = try await SupportActionsTests.events(server, app, transaction: "sub_plan").filter {
                $0["type"] as? String == "PRODUCT_CHANGE"
            }
            #expect(changes.map { $0["product_id"] as? String } == ["monthly", "annual"])
            #expect(changes.map { $0["new_product_id"] as? String } == ["annual", "monthly"])
            #expect((changes.first?["expiration_at_ms"] as? NSNumber)?.int64Value == Int64(yearEnd.timeIntervalSince1970 * 1000))
        }
    }
}
