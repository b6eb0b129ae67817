import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// A free trial switches plan as RevenueCat's Web Billing lets it: the switch ends the trial. An upgrade starts the new
/// plan, paid, now; a downgrade waits for the trial's end and starts the new plan, paid, then. Either way the trial
/// converts to the new plan (`PRODUCT_CHANGE`, then `RENEWAL` with `is_trial_conversion`), and the buyer hears once, that
/// the plan changed (a real SMTP server).
@Suite struct TrialPlanChangeTests {
    /// A sandbox trial of `product`, bought through the sandbox checkout; its purchase.
    static func trial(_ server: TestServer, _ app: CreatedAppKeys, _ product: String, user: String) async throws -> Purchase {
        #expect(try await WebBillingTests.setTrial(server, app, product, days: 7).status == 200)
        _ = try await WebBillingTests.pay(server, "/sandbox/p/\(app.id)/\(product)/\(user)", email: "\(user)@example.com")
        let purchase = try #require(try await server.deps.store.purchases(appID: app.id, email: "\(user)@example.com").first)
        #expect(purchase.periodType == .trial && purchase.productID == product)
        return purchase
    }

    static func mails(_ smtp: SMTPTestServer, to user: String) throws -> [String] {
        try smtp.received().filter { $0.rcptTos == ["\(user)@example.com"] }.map(\.subject)
    }

    @Test(arguments: TestDatabases.available)
    func anUpgradeEndsTheTrialAndStartsTheNewPlanNow(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, clock: clock, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                let app = try await server.createApp()
                try await PlanChangeSupportTests.catalog(server, app)
                let trial = try await Self.trial(server, app, "monthly", user: "tia")
                clock.advance(by: 60)
                let path = "/admin/v1/apps/\(app.id)/purchases/\(trial.id)/plan"
                let switched = try await server.send(.post, path, key: app.secret, json: #"{"product_id": "annual"}"#)
                #expect(switched.status == 200, "\(switched.body)")

                // The yearly plan, paid in full from now (a sandbox year is an hour), no longer a trial.
                let purchase = try await server.deps.store.purchase(appID: app.id, id: trial.id)
                #expect(purchase.productID == "annual" && purchase.periodType == .normal)
                #expect(purchase.price == Price(amountMicros: 49_990_000, currency: "USD"))
                #expect(purchase.expiresDate == clock.now().addingTimeInterval(3600))
                let events = try await SupportActionsTests.events(server, app, transaction: purchase.storeTransactionID)
                let last = events.suffix(2)
                #expect(Set(last.compactMap { $0["type"] as? String }) == ["PRODUCT_CHANGE", "RENEWAL"])
                let renewal = try #require(last.first { $0["type"] as? String == "RENEWAL" })
                #expect(renewal["is_trial_conversion"] as? Bool == true && renewal["product_id"] as? String == "annual")
                #expect(renewal["period_type"] as? String == "NORMAL")
                let change = try #require(last.first { $0["type"] as? String == "PRODUCT_CHANGE" })
                #expect(change["product_id"] as? String == "monthly" && change["new_product_id"] as? String == "annual")

                // One e-mail about it: the plan changed, not also "your free trial has ended".
                _ = await server.deps.mailer?.drain()
                let kinds = try await server.deps.store.emails(purchaseID: trial.id).map(\.email.kind)
                #expect(kinds.filter { $0 != .receipt } == [.planChanged], "\(kinds)")
                let notice = try #require(try smtp.received().last { $0.subject.contains("plan has changed") })
                #expect(try #require(notice.body("text/plain")).contains("You’re now on Pro yearly, at $49.99 / year"))
                #expect(try Self.mails(smtp, to: "tia").allSatisfy { !$0.contains("free trial has ended") })

                // The sandbox's worker finds no trial left to convert.
                let worker = SandboxRenewalWorker(
                    store: server.deps.store, clock: clock, logger: Logger(label: "test"), mail: LifecycleMail(language: nil))
                clock.advance(by: 300)
                _ = await worker.renewDue()
                #expect(try await SupportActionsTests.events(server, app, transaction: purchase.storeTransactionID).count == events.count)
            }
        }
    }

    @Test(arguments: TestDatabases.available)
    func aDowngradeWaitsForTheTrialsEndAndConvertsToTheNewPlan(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, clock: clock, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                let app = try await server.createApp()
                try await PlanChangeSupportTests.catalog(server, app)
                let trial = try await Self.trial(server, app, "annual", user: "dora")
                let trialEnd = try #require(trial.expiresDate)
                let path = "/admin/v1/apps/\(app.id)/purchases/\(trial.id)/plan"
                let scheduled = try await server.send(.post, path, key: app.secret, json: #"{"product_id": "monthly"}"#)
                let waiting = try scheduled.string("scheduled_plan.product_id")
                #expect(scheduled.status == 200 && waiting == "monthly", "\(scheduled.body)")
                #expect(try await server.deps.store.purchase(appID: app.id, id: trial.id).periodType == .trial, "the trial runs to its end")

                // The trial ends: it converts to the monthly plan, paid from the trial's end.
                clock.advance(by: SandboxClock.trialLength + 1)
                let worker = SandboxRenewalWorker(
                    store: server.deps.store, clock: clock, logger: Logger(label: "test"), mail: LifecycleMail(language: nil))
                #expect(await worker.renewDue() >= 1)
                let purchase = try await server.deps.store.purchase(appID: app.id, id: trial.id)
                #expect(purchase.productID == "monthly" && purchase.periodType == .normal && purchase.scheduledPlan == nil)
                #expect(purchase.price == Price(amountMicros: 4_990_000, currency: "USD"))
                #expect(purchase.expiresDate == trialEnd.addingTimeInterval(300), "a sandbox month from the trial's end")
                let events = try await SupportActionsTests.events(server, app, transaction: purchase.storeTransactionID).suffix(2)
                #expect(Set(events.compactMap { $0["type"] as? String }) == ["PRODUCT_CHANGE", "RENEWAL"])
                let renewal = try #require(events.first { $0["type"] as? String == "RENEWAL" })
                #expect(renewal["is_trial_conversion"] as? Bool == true && renewal["product_id"] as? String == "monthly")
                let info = try await server.send(.get, "/v1/subscribers/dora", key: app.secret).object()
                #expect(info.value(at: "subscriber.entitlements.pro.product_identifier") as? String == "monthly")
                #expect(info.value(at: "subscriber.entitlements.extra") == nil, "the yearly plan's extra went with it")

                _ = await server.deps.mailer?.drain()
                let kinds = try await server.deps.store.emails(purchaseID: trial.id).map(\.email.kind)
                #expect(kinds.filter { $0 != .receipt } == [.planScheduled, .planChanged], "\(kinds)")
            }
        }
    }

    /// Through Stripe: an upgrade ends the trial with the switch (`trial_end=now`), and Stripe's update then applies both
    /// at once; a downgrade's schedule keeps the trial phase to its end (`phases[0][trial_end]`).
    @Test func throughStripeTheSwitchEndsTheTrial() async throws {
        let stripe = PlanScheduleStripeTests.FakeStripe()
        try await SMTPTestServer.with { smtp in
            try await PlanScheduleStripeTests.serving(stripe, smtp: smtp) { server in
                let app = try await server.createApp()
                try await PlanChangeSupportTests.catalog(server, app)
                func trial(_ id: String, _ product: String) async throws -> Purchase {
                    let checkout = StripeWebhookTests.session(
                        id, app: app.id, product: product, mode: "subscription", subscription: "sub_\(id)", paymentIntent: nil
                    ).replacingOccurrences(of: #""campaign": "fall""#, with: #""redeem_trial_days": "7""#)
                    #expect(try await StripeWebhookTests.post(server, checkout).status == 200)
                    let purchase = try #require(try await StripeWebhookTests.purchase(server, app, transaction: "sub_\(id)"))
                    #expect(purchase.periodType == .trial)
                    return purchase
                }

                let up = try await trial("up", "monthly")
                let switched = try await server.send(
                    .post, "/admin/v1/apps/\(app.id)/purchases/\(up.id)/plan", key: app.secret, json: #"{"product_id": "annual"}"#)
                #expect(switched.status == 202, "\(switched.body)")
                let change = try #require(stripe.take().last { $0.call == "POST /v1/subscriptions/sub_up" })
                #expect(change.form.hasSuffix("&payment_behavior=pending_if_incomplete&trial_end=now"), "\(change.form)")
                let updated = StripeWebhookTests.subscription(
                    "up_active", type: "customer.subscription.updated", subscription: "sub_up", cancelAtPeriodEnd: false,
                    price: StripeWebhookTests.price("price_annual_usd", amount: 4999, metadata: ["app_id": app.id, "product_id": "annual"]),
                    periodEnd: TestServer.start.addingTimeInterval(86_400 * 365))
                #expect(try await StripeWebhookTests.post(server, updated).status == 200)
                let now = try await server.deps.store.purchase(appID: app.id, id: up.id)
                #expect(now.productID == "annual" && now.periodType == .normal)
                _ = await server.deps.mailer?.drain()
                let kinds = try await server.deps.store.emails(purchaseID: up.id).map(\.email.kind)
                #expect(kinds.filter { $0 != .receipt } == [.planChanged], "one notice, not also the trial's receipt: \(kinds)")

                let down = try await trial("down", "annual")
                let scheduled = try await server.send(
                    .post, "/admin/v1/apps/\(app.id)/purchases/\(down.id)/plan", key: app.secret, json: #"{"product_id": "monthly"}"#)
                #expect(scheduled.status == 200, "\(scheduled.body)")
                let phases = try #require(stripe.take().last { $0.call.hasPrefix("POST /v1/subscription_schedules/sub_sched_") })
                #expect(phases.form.hasSuffix("&phases[0][trial_end]=\(stripe.periodEnd)"), "\(phases.form)")
            }
        }
    }
}
