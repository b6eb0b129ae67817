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

/// A Stripe subscription's downgrade waits for the period's end in a subscription schedule (a fake Stripe on loopback):
/// made from the subscription, given the new Price for its second phase, released when the buyer keeps their plan or
/// cancels, and applied by Stripe's webhook at the renewal.
@Suite struct PlanScheduleStripeTests {
    /// What the fake Stripe holds and was asked.
    final class FakeStripe: Sendable {
        let calls = NIOLockedValueBox<[(method: String, path: String, form: String)]>([])
        let schedule = NIOLockedValueBox<String?>(nil)
        /// Runs while Stripe is given the schedule's phases: what happens meanwhile elsewhere.
        let meanwhile = NIOLockedValueBox<(@Sendable () async throws -> Void)?>(nil)
        let made = NIOLockedValueBox(0)
        let periodStart = Int(TestServer.start.timeIntervalSince1970)
        let periodEnd = Int(TestServer.start.timeIntervalSince1970) + 86_400 * 365

        func record(_ request: Request) async throws {
            let body = String(buffer: try await request.body.collect(upTo: 1 << 16))
            calls.withLockedValue { $0.append((request.method.rawValue, request.uri.path, body)) }
        }

        func json(_ text: String) -> Response {
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
        }

        func scheduleJSON(_ id: String) -> String {
            let phase = #"{"start_date": \#(periodStart), "end_date": \#(periodEnd), "items": [{"price": "price_annual", "quantity": 1}]}"#
            return
                #"{"id": "\#(id)", "object": "subscription_schedule", "phases": [\#(phase)], "current_phase": {"start_date": \#(periodStart), "end_date": \#(periodEnd)}}"#
        }

        var router: Router<BasicRequestContext> {
            let router = Router()
            router.post("/v1/prices") { request, _ in
                try await self.record(request)
                return self.json(#"{"id": "price_monthly_usd"}"#)
            }
            router.get("/v1/subscriptions/{id}") { request, _ in
                try await self.record(request)
                let schedule = self.schedule.withLockedValue { $0 }.map { "\"\($0)\"" } ?? "null"
                return self.json(
                    #"""
                    {"id": "sub_down", "object": "subscription", "status": "active", "customer": "cus_9", "metadata": {}, "schedule": \#(schedule),
                     "items": {"object": "list", "data": [{"id": "si_1", "price": {"id": "price_annual", "currency": "usd", "unit_amount": 4999}}]}}
                    """#)
            }
            router.post("/v1/subscriptions/{id}") { request, _ in
                try await self.record(request)
                return self.json(#"{"id": "sub_down", "object": "subscription", "pending_update": null}"#)
            }
            router.post("/v1/subscription_schedules") { request, _ in
                try await self.record(request)
                let count = self.made.withLockedValue { made in
                    made += 1
                    return made
                }
                let id = "sub_sched_\(count)"
                self.schedule.withLockedValue { $0 = id }
                return self.json(self.scheduleJSON(id))
            }
            router.get("/v1/subscription_schedules/{id}") { request, context in
                try await self.record(request)
                return self.json(self.scheduleJSON(try context.parameters.require("id")))
            }
            router.post("/v1/subscription_schedules/{id}") { request, context in
                try await self.record(request)
                try await self.meanwhile.withLockedValue { $0 }?()
                return self.json(self.scheduleJSON(try context.parameters.require("id")))
            }
            router.post("/v1/subscription_schedules/{id}/release") { request, context in
                try await self.record(request)
                self.schedule.withLockedValue { $0 = nil }
                return self.json(self.scheduleJSON(try context.parameters.require("id")))
            }
            return router
        }

        /// The calls since the last look, as "METHOD path".
        func take() -> [(call: String, form: String)] {
            calls.withLockedValue { calls in
                defer { calls = [] }
                return calls.map { ("\($0.method) \($0.path)", $0.form) }
            }
        }
    }

    /// A test server on SQLite whose Stripe is `stripe`, served on loopback, with e-mail to `smtp` when given.
    static func serving(
        _ stripe: FakeStripe, smtp: SMTPTestServer? = nil, _ body: @escaping @Sendable (TestServer) async throws -> Void
    ) async throws {
        let fake = Application(router: stripe.router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await fake.test(.live) { client in
            let settings = try StripeSettings(secretKey: "sk_test_123", apiBase: URL(string: "http://127.0.0.1:\(try #require(client.port))")!)
            let mail = try smtp.map { try EmailFlowTests.settings(port: $0.port) }
            try await TestServer.with(.sqlite, mail: mail, stripeWebhookSecret: StripeWebhookTests.secret, stripe: settings, body)
        }
    }

    @Test func aStripeDowngradeWaitsInASubscriptionSchedule() async throws {
        let stripe = FakeStripe()
        try await SMTPTestServer.with { smtp in
            try await Self.serving(stripe, smtp: smtp) { server in
                let app = try await server.createApp()
                try await PlanChangeSupportTests.catalog(server, app)
                let checkout = StripeWebhookTests.session(
                    "down", app: app.id, product: "annual", mode: "subscription", subscription: "sub_down", paymentIntent: nil)
                #expect(try await StripeWebhookTests.post(server, checkout).status == 200)
                let purchaseID = try #require(try await StripeWebhookTests.purchase(server, app, transaction: "sub_down")).id
                func purchase() async throws -> Purchase { try await server.deps.store.purchase(appID: app.id, id: purchaseID) }
                let session = try await PlanChangeSupportTests.signIn(server, smtp, app, email: "payer@example.com")
                let csrf = try ConsoleOperationsTests.csrf(
                    try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session]))
                func post(_ action: String, _ form: [String: String] = [:]) async throws -> String? {
                    try await ConsoleTests.post(
                        server, "/account/\(app.id)/purchases/\(purchaseID)/\(action)", form.merging(["csrf": csrf]) { a, _ in a },
                        cookie: session
                    ).headers[.location]
                }
                func webhook(_ id: String, cancel: Bool, price: String? = nil, periodEnd: Date? = nil) async throws {
                    let event = StripeWebhookTests.subscription(
                        id, type: "customer.subscription.updated", subscription: "sub_down", cancelAtPeriodEnd: cancel, price: price,
                        periodEnd: periodEnd)
                    #expect(try await StripeWebhookTests.post(server, event).status == 200)
                }

                // The downgrade: the monthly plan's Price made, the subscription read, a schedule made from it and
                // given two phases. The purchase stays yearly, with the switch recorded.
                #expect(try await post("plan", ["product": "monthly"]) == "/account/\(app.id)?notice=plan-scheduled")
                var calls = stripe.take()
                #expect(
                    calls.map(\.call) == [
                        "POST /v1/prices", "GET /v1/subscriptions/sub_down", "POST /v1/subscription_schedules",
                        "POST /v1/subscription_schedules/sub_sched_1",
                    ])
                #expect(calls[2].form == "from_subscription=sub_down")
                #expect(
                    calls[3].form
                        == "end_behavior=release&proration_behavior=none&phases[0][items][0][price]=price_annual&phases[0][items][0][quantity]=1"
                        + "&phases[0][start_date]=\(stripe.periodStart)&phases[0][end_date]=\(stripe.periodEnd)"
                        + "&phases[1][items][0][price]=price_monthly_usd&phases[1][items][0][quantity]=1"
                        + "&phases[1][duration][interval]=month&phases[1][duration][interval_count]=1")
                var now = try await purchase()
                #expect(
                    now.productID == "annual" && now.scheduledPlan?.productID == "monthly" && now.scheduledPlan?.stripeScheduleID == "sub_sched_1"
                )
                let asked = try await server.deps.store.auditLog(appID: app.id, limit: 20).first { $0.action == "purchase.change_plan" }
                #expect(asked?.detail == "asked Stripe to switch from annual to monthly at the period's end (price_monthly_usd)")

                // Kept after all: the schedule released, so the subscription goes on yearly.
                #expect(try await post("plan", ["product": "annual"]) == "/account/\(app.id)?notice=plan-kept")
                calls = stripe.take()
                #expect(calls.map(\.call) == ["GET /v1/subscriptions/sub_down", "POST /v1/subscription_schedules/sub_sched_1/release"])
                #expect(try await purchase().scheduledPlan == nil)

                // Asked again, then cancelled: Stripe refuses to cancel a subscription its schedule manages, so the
                // schedule is released first; the webhook's cancellation drops Redeem's record of the switch.
                #expect(try await post("plan", ["product": "monthly"]) == "/account/\(app.id)?notice=plan-scheduled")
                #expect(stripe.take().map(\.call).contains("POST /v1/subscription_schedules/sub_sched_2"))
                _ = try await post("cancel")
                calls = stripe.take()
                #expect(
                    calls.map(\.call) == [
                        "GET /v1/subscriptions/sub_down", "POST /v1/subscription_schedules/sub_sched_2/release",
                        "POST /v1/subscriptions/sub_down",
                    ])
                #expect(calls.last?.form.contains("cancel_at_period_end=true") == true)
                try await webhook("cancelled", cancel: true, periodEnd: Date(timeIntervalSince1970: TimeInterval(stripe.periodEnd)))
                #expect(try await purchase().scheduledPlan == nil)
                try await webhook("resumed", cancel: false, periodEnd: Date(timeIntervalSince1970: TimeInterval(stripe.periodEnd)))

                // Asked a third time; at the period's end Stripe's schedule bills the monthly Price, and its update
                // makes the purchase monthly: one PRODUCT_CHANGE, nothing left waiting.
                #expect(try await post("plan", ["product": "monthly"]) == "/account/\(app.id)?notice=plan-scheduled")
                #expect(try await purchase().scheduledPlan?.stripeScheduleID == "sub_sched_3")

                // Released in Stripe's dashboard: an update older than the request leaves the switch; a newer one
                // without the schedule drops it.
                let yearEnd = Date(timeIntervalSince1970: TimeInterval(stripe.periodEnd))
                try await webhook("stale", cancel: false, periodEnd: yearEnd)
                #expect(try await purchase().scheduledPlan?.stripeScheduleID == "sub_sched_3")
                let released = StripeWebhookTests.subscription(
                    "released", type: "customer.subscription.updated", subscription: "sub_down", cancelAtPeriodEnd: false, periodEnd: yearEnd
                ).replacingOccurrences(
                    of: #""created": \#(stripe.periodStart)"#, with: #""created": \#(stripe.periodStart + 60)"#)
                #expect(try await StripeWebhookTests.post(server, released).status == 200)
                #expect(try await purchase().scheduledPlan == nil)
                // A schedule the subscription already has (made in the dashboard) is read and given the phases.
                stripe.schedule.withLockedValue { $0 = "sub_sched_dash" }
                _ = stripe.take()
                #expect(try await post("plan", ["product": "monthly"]) == "/account/\(app.id)?notice=plan-scheduled")
                #expect(
                    stripe.take().map(\.call) == [
                        "GET /v1/subscriptions/sub_down", "GET /v1/subscription_schedules/sub_sched_dash",
                        "POST /v1/subscription_schedules/sub_sched_dash",
                    ])
                #expect(try await purchase().scheduledPlan?.stripeScheduleID == "sub_sched_dash")
                let renewed = Date(timeIntervalSince1970: TimeInterval(stripe.periodEnd + 86_400 * 30))
                try await webhook("renewed", cancel: false, price: StripeWebhookTests.price("price_monthly_usd", amount: 499), periodEnd: renewed)
                now = try await purchase()
                #expect(now.productID == "monthly" && now.scheduledPlan == nil && now.expiresDate == renewed)
                #expect(now.price == Price(amountMicros: 4_990_000, currency: "USD"))
                let events = try await SupportActionsTests.events(server, app, transaction: "sub_down").compactMap { $0["type"] as? String }
                #expect(events.filter { $0 == "PRODUCT_CHANGE" }.count == 1)
            }
        }
    }

    /// The subscription is set to end (Stripe's update, by another request) while Stripe makes the downgrade's schedule:
    /// Redeem refuses to record a switch for a subscription that renews into nothing, and releases the schedule it
    /// cannot record, so nothing switches at the period's end.
    @Test func aScheduleMadeWhileTheSubscriptionWasSetToEndIsReleased() async throws {
        let stripe = FakeStripe()
        try await Self.serving(stripe) { server in
            let app = try await server.createApp()
            try await PlanChangeSupportTests.catalog(server, app)
            let checkout = StripeWebhookTests.session(
                "race", app: app.id, product: "annual", mode: "subscription", subscription: "sub_down", paymentIntent: nil)
            #expect(try await StripeWebhookTests.post(server, checkout).status == 200)
            let purchase = try #require(try await StripeWebhookTests.purchase(server, app, transaction: "sub_down"))
            let cancelElsewhere: @Sendable () async throws -> Void = {
                let cancelled = StripeWebhookTests.subscription(
                    "race_cancel", type: "customer.subscription.updated", subscription: "sub_down", cancelAtPeriodEnd: true)
                let answer = try await StripeWebhookTests.post(server, cancelled)
                #expect(answer.status == 200)
            }
            stripe.meanwhile.withLockedValue { $0 = cancelElsewhere }
            let refused = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/purchases/\(purchase.id)/plan", key: app.secret, json: #"{"product_id": "monthly"}"#)
            #expect(refused.status == 409 && refused.body.contains("set to end"), "\(refused.body)")
            #expect(
                stripe.take().map(\.call).suffix(3) == [
                    "POST /v1/subscription_schedules/sub_sched_1", "GET /v1/subscriptions/sub_down",
                    "POST /v1/subscription_schedules/sub_sched_1/release",
                ])
            #expect(stripe.schedule.withLockedValue { $0 } == nil)
            #expect(try await server.deps.store.purchase(appID: app.id, id: purchase.id).scheduledPlan == nil)
        }
    }
}
