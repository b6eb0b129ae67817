import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// A chargeback (Stripe's `charge.dispute.*`) ends the purchase at once, as RevenueCat's Web Billing does: the
/// subscription is cancelled in Stripe (a fake Stripe on loopback) before the event is recorded, the access ends with a
/// `CANCELLATION` for the amount taken back, and the buyer is told once (a real SMTP server). An inquiry changes nothing.
@Suite struct ChargebackTests {
    /// What the fake Stripe holds and was asked; `failing` makes its next cancellation a 500.
    final class FakeStripe: Sendable {
        let calls = NIOLockedValueBox<[String]>([])
        let status = NIOLockedValueBox("active")
        let schedule = NIOLockedValueBox<String?>("sub_sched_9")
        let failing = NIOLockedValueBox(false)

        func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
            Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
        }

        var subscription: String {
            let schedule = self.schedule.withLockedValue { $0 }.map { "\"\($0)\"" } ?? "null"
            return #"""
                {"id": "sub_cb", "object": "subscription", "status": "\#(status.withLockedValue { $0 })", "customer": "cus_1", "metadata": {},
                 "schedule": \#(schedule), "items": {"object": "list", "data": []}}
                """#
        }

        var router: Router<BasicRequestContext> {
            let router = Router()
            router.get("/v1/subscriptions/{id}") { request, context in
                self.calls.withLockedValue { $0.append("GET \(request.uri.path)") }
                if try context.parameters.require("id") == "sub_gone" {
                    return self.json(#"{"error": {"type": "invalid_request_error", "message": "No such subscription"}}"#, status: .notFound)
                }
                return self.json(self.subscription)
            }
            router.delete("/v1/subscriptions/{id}") { request, _ in
                self.calls.withLockedValue { $0.append("DELETE \(request.uri.path) key=\(request.headers[.init("Idempotency-Key")!] ?? "")") }
                if self.failing.withLockedValue({ $0 }) {
                    return self.json(#"{"error": {"type": "api_error", "message": "Stripe is having a bad day"}}"#, status: .internalServerError)
                }
                self.status.withLockedValue { $0 = "canceled" }
                return self.json(self.subscription)
            }
            router.post("/v1/subscription_schedules/{id}/release") { request, _ in
                self.calls.withLockedValue { $0.append("POST \(request.uri.path)") }
                self.schedule.withLockedValue { $0 = nil }
                return self.json(#"{"id": "sub_sched_9", "object": "subscription_schedule", "phases": [], "current_phase": null}"#)
            }
            return router
        }

        func take() -> [String] {
            calls.withLockedValue { calls in
                defer { calls = [] }
                return calls
            }
        }
    }

    /// Stripe's dispute event, as `charge.dispute.created`, `.updated` or `.closed` carries it.
    static func dispute(_ eventID: String, type: String, status: String, paymentIntent: String, amount: Int = 499) -> String {
        """
        {"id": "evt_dispute_\(eventID)", "object": "event", "type": "\(type)", "created": \(Int(TestServer.start.timeIntervalSince1970) + 60), "livemode": false,
         "data": {"object": {"id": "du_1", "object": "dispute", "amount": \(amount), "charge": "ch_1", "currency": "usd",
         "created": \(Int(TestServer.start.timeIntervalSince1970) + 60), "payment_intent": "\(paymentIntent)", "reason": "fraudulent",
         "status": "\(status)", "is_charge_refundable": false, "metadata": {}}}}
        """
    }

    /// The subscription's first invoice, naming the payment a dispute names; `period` 1 and on are its renewals'.
    static func firstInvoice(subscription: String, paymentIntent: String, period: Int = 0) -> String {
        let start = Int(TestServer.start.timeIntervalSince1970) + period * 86_400 * 30
        let reason = period == 0 ? "subscription_create" : "subscription_cycle"
        return """
            {"id": "evt_inv_\(subscription)_\(period)", "object": "event", "type": "invoice.paid", "created": \(start), "livemode": false,
             "data": {"object": {"id": "in_\(subscription)_\(period)", "object": "invoice", "subscription": "\(subscription)", "billing_reason": "\(reason)",
             "customer": "cus_1", "status": "paid", "amount_paid": 499, "currency": "usd", "payment_intent": "\(paymentIntent)",
             "lines": {"object": "list", "data": [{"id": "il_1", "amount": 499, "period": {"start": \(start), "end": \(start + 86_400 * 30)}}]},
             "status_transitions": {"paid_at": \(start)}}}}
            """
    }

    static func disputeMails(_ smtp: SMTPTestServer) throws -> [ReceivedMail] {
        try smtp.received().filter { $0.subject.contains("payment was disputed") }
    }

    @Test(arguments: TestDatabases.available)
    func aChargebackEndsTheSubscriptionInStripeAndTheAccessAtOnce(_ backend: TestBackend) async throws {
        let stripe = FakeStripe()
        let fake = Application(router: stripe.router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await fake.test(.live) { client in
            let settings = try StripeSettings(secretKey: "sk_test_123", apiBase: URL(string: "http://127.0.0.1:\(try #require(client.port))")!)
            try await SMTPTestServer.with { smtp in
                try await TestServer.with(
                    backend, mail: try EmailFlowTests.settings(port: smtp.port), stripeWebhookSecret: StripeWebhookTests.secret, stripe: settings
                ) { server in
                    let app = try await server.createAppWithCatalog()
                    try await SupportActionsTests.withEndpoint(server, app)
                    let checkout = StripeWebhookTests.session(
                        "cb", app: app.id, product: "monthly", mode: "subscription", subscription: "sub_cb", paymentIntent: nil, user: "cara")
                    #expect(try await StripeWebhookTests.post(server, checkout).status == 200)
                    #expect(
                        try await StripeWebhookTests.post(server, Self.firstInvoice(subscription: "sub_cb", paymentIntent: "pi_cb")).status == 200)
                    let id = try #require(try await StripeWebhookTests.purchase(server, app, transaction: "sub_cb")).id
                    func purchase() async throws -> Purchase { try await server.deps.store.purchase(appID: app.id, id: id) }
                    #expect(try await SupportActionsTests.entitlement(server, app, "cara", "pro") != nil)

                    // An inquiry only asks: recorded, nothing ended, Stripe not called, the buyer not told.
                    let inquiry = Self.dispute("inq", type: "charge.dispute.created", status: "warning_needs_response", paymentIntent: "pi_cb")
                    #expect(try await StripeWebhookTests.post(server, inquiry).status == 200)
                    var stored = try await purchase()
                    #expect(stored.dispute?.status == "warning_needs_response" && stored.dispute?.isChargeback == false)
                    #expect(stored.refundedAt == nil)
                    #expect(stripe.take().isEmpty)
                    #expect(try await SupportActionsTests.entitlement(server, app, "cara", "pro") != nil)

                    // It becomes a chargeback while Stripe fails: nothing is recorded, and Stripe is asked to deliver it again.
                    stripe.failing.withLockedValue { $0 = true }
                    let chargeback = Self.dispute("cb", type: "charge.dispute.updated", status: "needs_response", paymentIntent: "pi_cb")
                    let refused = try await StripeWebhookTests.post(server, chargeback)
                    #expect(refused.status == 502, "\(refused.body)")
                    #expect(try await purchase().dispute?.status == "warning_needs_response")
                    #expect(try await purchase().refundedAt == nil)
                    // The schedule holding the subscription (Stripe ends only one no schedule manages) was released first.
                    #expect(
                        stripe.take() == [
                            "GET /v1/subscriptions/sub_cb", "POST /v1/subscription_schedules/sub_sched_9/release",
                            "DELETE /v1/subscriptions/sub_cb key=redeem-du_1",
                        ])

                    // Delivered again: the subscription is ended (with the same idempotency key), and then the access ends
                    // with a CANCELLATION for the amount taken back.
                    stripe.failing.withLockedValue { $0 = false }
                    #expect(try await StripeWebhookTests.post(server, chargeback).status == 200)
                    #expect(stripe.take() == ["GET /v1/subscriptions/sub_cb", "DELETE /v1/subscriptions/sub_cb key=redeem-du_1"])
                    #expect(stripe.status.withLockedValue { $0 } == "canceled")
                    stored = try await purchase()
                    #expect(stored.dispute?.status == "needs_response" && stored.dispute?.reason == "fraudulent")
                    #expect(stored.dispute?.amount == Price(amountMicros: 4_990_000, currency: "USD"))
                    #expect(stored.dispute?.openedAt == TestServer.start.addingTimeInterval(60))
                    #expect(stored.refundedAt != nil && stored.dispute?.endedAccessAt == stored.refundedAt)
                    #expect(try await SupportActionsTests.entitlement(server, app, "cara", "pro") == nil)
                    let events = try await SupportActionsTests.events(server, app, transaction: "sub_cb")
                    let cancellation = try #require(events.last)
                    #expect(cancellation["type"] as? String == "CANCELLATION")
                    #expect(cancellation["cancel_reason"] as? String == "CUSTOMER_SUPPORT")
                    #expect(cancellation["price"] as? Double == -4.99)

                    // The buyer is told once, in words that say why it ended.
                    _ = await server.deps.mailer?.drain()
                    let mails = try Self.disputeMails(smtp)
                    #expect(mails.count == 1)
                    let text = try #require(try mails.first?.body("text/plain"))
                    #expect(text.contains("Your bank told us you disputed your payment for"), "\(text)")
                    #expect(text.contains("Disputed"))

                    // A redelivery and the dispute's later news ask Stripe nothing and end nothing twice; winning it
                    // brings the money back, not the access.
                    #expect(try await StripeWebhookTests.post(server, chargeback).status == 200)
                    let won = Self.dispute("won", type: "charge.dispute.closed", status: "won", paymentIntent: "pi_cb")
                    #expect(try await StripeWebhookTests.post(server, won).status == 200)
                    #expect(stripe.take().isEmpty)
                    stored = try await purchase()
                    #expect(stored.dispute?.status == "won" && stored.dispute?.openedAt == TestServer.start.addingTimeInterval(60))
                    #expect(try await SupportActionsTests.entitlement(server, app, "cara", "pro") == nil)
                    #expect(try await SupportActionsTests.events(server, app, transaction: "sub_cb").count == events.count)
                    _ = await server.deps.mailer?.drain()
                    #expect(try Self.disputeMails(smtp).count == 1)

                    // The admin API shows it; the console says it was charged back, and why.
                    let shown = try await server.send(.get, "/admin/v1/apps/\(app.id)/purchases/\(id)", key: app.secret).object()
                    #expect(shown.value(at: "purchase.dispute.status") as? String == "won")
                    #expect(shown.value(at: "purchase.dispute.reason") as? String == "fraudulent")
                    let owner = try await ConsoleTests.signedInOwner(server)
                    let path = try await ConsoleCustomerTests.customerPath(server, appID: app.id, query: "cara", cookie: owner)
                    let page = try await ConsoleCustomerTests.get(server, path, cookie: owner).body
                    #expect(page.contains("charged back"), "the purchase's term")
                    #expect(page.contains(#"<span class="pill pill--charged-back">charged back</span>"#))
                    #expect(page.contains("Charged back monthly: the buyer’s bank took the payment back"))
                    #expect(page.contains("reason: fraudulent · won · 4.99 USD (du_1)"))
                    #expect(!page.contains("Refunded Pro"), "a chargeback, not a refund")

                    // A subscription Stripe does not know (another account's, or deleted) has nothing to cancel: the
                    // access still ends, rather than Stripe's event being refused for good.
                    let gone = StripeWebhookTests.session(
                        "gone", app: app.id, product: "monthly", mode: "subscription", subscription: "sub_gone", paymentIntent: nil, user: "gil")
                    #expect(try await StripeWebhookTests.post(server, gone).status == 200)
                    #expect(
                        try await StripeWebhookTests.post(server, Self.firstInvoice(subscription: "sub_gone", paymentIntent: "pi_gone")).status == 200
                    )
                    _ = stripe.take()
                    let goneDispute = Self.dispute("gone", type: "charge.dispute.created", status: "needs_response", paymentIntent: "pi_gone")
                    #expect(try await StripeWebhookTests.post(server, goneDispute.replacingOccurrences(of: "du_1", with: "du_2")).status == 200)
                    #expect(stripe.take() == ["GET /v1/subscriptions/sub_gone"])
                    #expect(try await SupportActionsTests.entitlement(server, app, "gil", "pro") == nil)

                    // The buyer's portal says the same.
                    let session = try await PlanChangeSupportTests.signIn(server, smtp, app, email: "payer@example.com")
                    let portal = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session]).body
                    #expect(portal.contains("Payment disputed"), "\(portal)")
                }
            }
        }
    }

    /// A one-time purchase has no subscription to end: the access ends without a call to Stripe. Without a Stripe key the
    /// subscription's access still ends. A purchase refunded before its dispute ends nothing twice and tells nobody again.
    @Test(arguments: TestDatabases.available)
    func withoutASubscriptionOrAKeyTheAccessStillEnds(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port), stripeWebhookSecret: StripeWebhookTests.secret) {
                server in
                let app = try await server.createAppWithCatalog()
                try await SupportActionsTests.withEndpoint(server, app)
                let lifetime = StripeWebhookTests.session(
                    "life", app: app.id, product: "lifetime", mode: "payment", subscription: nil, paymentIntent: "pi_life", user: "lou")
                #expect(try await StripeWebhookTests.post(server, lifetime).status == 200)
                #expect(try await SupportActionsTests.entitlement(server, app, "lou", "pro") != nil)
                let lost = Self.dispute("life", type: "charge.dispute.created", status: "needs_response", paymentIntent: "pi_life")
                #expect(try await StripeWebhookTests.post(server, lost).status == 200)
                #expect(try await SupportActionsTests.entitlement(server, app, "lou", "pro") == nil)

                let monthly = StripeWebhookTests.session(
                    "sub", app: app.id, product: "monthly", mode: "subscription", subscription: "sub_nokey", paymentIntent: nil, user: "sam")
                #expect(try await StripeWebhookTests.post(server, monthly).status == 200)
                #expect(
                    try await StripeWebhookTests.post(server, Self.firstInvoice(subscription: "sub_nokey", paymentIntent: "pi_nokey")).status == 200)
                let renewal = Self.firstInvoice(subscription: "sub_nokey", paymentIntent: "pi_nokey_2", period: 1)
                #expect(try await StripeWebhookTests.post(server, renewal).status == 200)
                // The first month's payment is disputed after the second was paid: it still finds its purchase.
                let nokey = Self.dispute("nokey", type: "charge.dispute.created", status: "needs_response", paymentIntent: "pi_nokey")
                #expect(try await StripeWebhookTests.post(server, nokey).status == 200)
                #expect(try await SupportActionsTests.entitlement(server, app, "sam", "pro") == nil)

                // Refunded first, disputed after: the dispute is kept, the refund's CANCELLATION is the only one.
                let again = StripeWebhookTests.session(
                    "again", app: app.id, product: "lifetime", mode: "payment", subscription: nil, paymentIntent: "pi_again", user: "rae")
                #expect(try await StripeWebhookTests.post(server, again).status == 200)
                #expect(try await StripeWebhookTests.post(server, StripeWebhookTests.refund("refund_again", paymentIntent: "pi_again")).status == 200)
                let late = Self.dispute("again", type: "charge.dispute.created", status: "needs_response", paymentIntent: "pi_again")
                #expect(try await StripeWebhookTests.post(server, late).status == 200)
                let rae = try #require(try await StripeWebhookTests.purchase(server, app, transaction: "cs_test_again"))
                #expect(rae.dispute?.isChargeback == true && rae.dispute?.endedAccessAt == nil, "the refund ended it, not the dispute")
                #expect(PurchaseTerm(rae, at: server.deps.clock.now()) == .refunded(try #require(rae.refundedAt)))
                let cancellations = try await SupportActionsTests.events(server, app, transaction: "cs_test_again").filter {
                    $0["type"] as? String == "CANCELLATION"
                }
                #expect(cancellations.count == 1)
                #expect(cancellations.first?["price"] as? Double == -4.99)

                // A refund of an earlier period's payment ends nothing, as RevenueCat's does not; the latest one's does.
                let old = StripeWebhookTests.session(
                    "old", app: app.id, product: "monthly", mode: "subscription", subscription: "sub_old", paymentIntent: nil, user: "olga")
                #expect(try await StripeWebhookTests.post(server, old).status == 200)
                for (period, intent) in ["pi_old_1", "pi_old_2"].enumerated() {
                    let paid = Self.firstInvoice(subscription: "sub_old", paymentIntent: intent, period: period)
                    #expect(try await StripeWebhookTests.post(server, paid).status == 200)
                }
                #expect(try await StripeWebhookTests.post(server, StripeWebhookTests.refund("refund_old_1", paymentIntent: "pi_old_1")).status == 200)
                #expect(try await SupportActionsTests.entitlement(server, app, "olga", "pro") != nil)
                #expect(try await StripeWebhookTests.post(server, StripeWebhookTests.refund("refund_old_2", paymentIntent: "pi_old_2")).status == 200)
                #expect(try await SupportActionsTests.entitlement(server, app, "olga", "pro") == nil)

                // An unknown payment changes nothing and is not an error.
                let stranger = Self.dispute("stranger", type: "charge.dispute.created", status: "needs_response", paymentIntent: "pi_unknown")
                #expect(try await StripeWebhookTests.post(server, stranger).status == 200)

                _ = await server.deps.mailer?.drain()
                let subjects = try smtp.received().map(\.subject)
                #expect(try Self.disputeMails(smtp).count == 2, "Lou's and Sam's; Rae was told of her refund: \(subjects)")
                #expect(subjects.contains("Your Test App refund"))
            }
        }
    }
}
