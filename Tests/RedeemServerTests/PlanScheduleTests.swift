import Foundation
import Logging
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// A downgrade waits for the period's end (the App Store's rule over the group's levels): the buyer keeps what they
/// paid for, may keep their plan after all, and the renewal applies it. Sandbox subscriptions here; Stripe's in
/// `PlanScheduleStripeTests`.
@Suite struct PlanScheduleTests {
    @Test(arguments: TestDatabases.available)
    func aDowngradeWaitsForTheRenewal(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, clock: clock, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                let app = try await server.createApp()
                try await PlanChangeSupportTests.catalog(server, app)
                let bought = try await server.grant(
                    app,
                    #"{"app_user_id": "web-2", "product_id": "annual", "email": "yearly@example.com", "is_sandbox": true, "store": "rc_billing", "price": {"amount": "49.99", "currency": "USD"}}"#
                )
                let purchaseID = try #require(try bought.string("purchase.id"))
                let yearEnd = try #require(try await server.deps.store.purchase(appID: app.id, id: purchaseID).expiresDate)
                let session = try await PlanChangeSupportTests.signIn(server, smtp, app, email: "yearly@example.com")
                let home = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session])
                let csrf = try ConsoleOperationsTests.csrf(home)
                #expect(
                    home.body.contains(#"value="monthly" required> Pro monthly · $4.99 / month · from June 1, 2027"#),
                    "a downgrade says when it would start")
                func ask(_ product: String) async throws -> String? {
                    try await ConsoleTests.post(
                        server, "/account/\(app.id)/purchases/\(purchaseID)/plan", ["csrf": csrf, "product": product], cookie: session
                    ).headers[.location]
                }
                func purchase() async throws -> Purchase { try await server.deps.store.purchase(appID: app.id, id: purchaseID) }

                // Asked for: it waits; the buyer keeps the yearly plan and its entitlements until the period ends.
                #expect(try await ask("monthly") == "/account/\(app.id)?notice=plan-scheduled")
                var now = try await purchase()
                #expect(now.productID == "annual" && now.expiresDate == yearEnd)
                #expect(now.scheduledPlan?.productID == "monthly" && now.scheduledPlan?.price == Price(amountMicros: 4_990_000, currency: "USD"))
                let info = try await server.send(.get, "/v1/subscribers/web-2", key: app.secret).object()
                #expect(info.value(at: "subscriber.entitlements.extra.product_identifier") as? String == "annual")
                let types = { try await SupportActionsTests.events(server, app, transaction: now.storeTransactionID).map { $0["type"] as? String } }
                #expect(try await types() == ["INITIAL_PURCHASE"], "nothing has changed yet")
                let audit = { try await server.deps.store.auditLog(appID: app.id, limit: 20).filter { $0.action == "purchase.change_plan" } }
                #expect(try await audit().first?.detail == "from annual to monthly at the period's end")
                let card = try await server.send(.get, "/account/\(app.id)?notice=plan-scheduled", key: nil, headers: [.cookie: session]).body
                #expect(card.contains("You keep your current plan until the end of this period"))
                #expect(card.contains("Changes to Pro monthly on June 1, 2027") && card.contains("Keep my current plan"))
                // Asked again (a retry): the same switch still waits, and nothing more is audited.
                #expect(try await ask("monthly") == "/account/\(app.id)?notice=plan-scheduled")
                #expect(try await audit().count == 1)
                // The buyer is told once, at a real SMTP server: the plan kept until when, and the one after.
                _ = await server.deps.mailer?.drain()
                let told = try smtp.received().filter { $0.subject.contains("plan changes on June 1, 2027") }
                #expect(told.count == 1 && told.first?.rcptTos == ["yearly@example.com"])
                let words = try #require(try told.first?.body("text/plain"))
                #expect(
                    words.contains("You keep Pro yearly until June 1, 2027. Then your subscription renews as Pro monthly, at $4.99 / month"),
                    "\(words)")

                // "Keep my current plan" asks for the plan it is on: the switch is dropped.
                #expect(try await ask("annual") == "/account/\(app.id)?notice=plan-kept")
                #expect(try await purchase().scheduledPlan == nil)
                #expect(try await audit().first?.detail == "kept annual, not monthly")
                let kept = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session]).body
                #expect(!kept.contains("Changes to Pro monthly") && !kept.contains("Keep my current plan"))

                // Set to end, it renews into no plan: a waiting switch goes with it, and resuming does not bring it back.
                #expect(try await ask("monthly") == "/account/\(app.id)?notice=plan-scheduled")
                _ = try await ConsoleTests.post(server, "/account/\(app.id)/purchases/\(purchaseID)/cancel", ["csrf": csrf], cookie: session)
                #expect(try await purchase().scheduledPlan == nil)
                _ = try await ConsoleTests.post(server, "/account/\(app.id)/purchases/\(purchaseID)/resume", ["csrf": csrf], cookie: session)
                let resumed = try await purchase()
                #expect(resumed.scheduledPlan == nil && resumed.unsubscribeDetectedAt == nil)

                // The renewal applies it: the monthly plan at its price, from the yearly period's end (a sandbox month
                // is 5 minutes), with PRODUCT_CHANGE then RENEWAL, and the buyer told.
                #expect(try await ask("monthly") == "/account/\(app.id)?notice=plan-scheduled")
                let worker = SandboxRenewalWorker(
                    store: server.deps.store, clock: clock, logger: Logger(label: "test"), mail: LifecycleMail(language: nil))
                #expect(await worker.renewDue() == 0)
                clock.advance(by: yearEnd.timeIntervalSince(TestServer.start) + 1)
                #expect(await worker.renewDue() == 1)
                now = try await purchase()
                #expect(now.productID == "monthly" && now.price == Price(amountMicros: 4_990_000, currency: "USD") && now.scheduledPlan == nil)
                #expect(now.expiresDate == yearEnd.addingTimeInterval(300))
                let events = try await SupportActionsTests.events(server, app, transaction: now.storeTransactionID)
                // Written in one transaction, in the same millisecond: their order is not the test's to fix.
                let last = Array(events.suffix(2))
                #expect(Set(last.compactMap { $0["type"] as? String }) == ["PRODUCT_CHANGE", "RENEWAL"], "cancelled and resumed before")
                let change = try #require(last.first { $0["type"] as? String == "PRODUCT_CHANGE" })
                #expect(change["product_id"] as? String == "annual" && change["new_product_id"] as? String == "monthly")
                #expect(last.first { $0["type"] as? String == "RENEWAL" }?["product_id"] as? String == "monthly")
                _ = await server.deps.mailer?.drain()
                #expect(try smtp.received().filter { $0.subject.contains("plan has changed") && $0.rcptTos == ["yearly@example.com"] }.count == 1)
                // The metrics and the history read the yearly plan until the switch, at the period's end.
                let switches = try await server.deps.store.customerFacts(appID: app.id, customerID: now.customerID).planChanges
                #expect(switches.map(\.at) == [yearEnd] && switches.first?.fromProductID == "annual")
            }
        }
    }

    /// The admin API schedules and drops the same way; the purchase's JSON says what waits.
    @Test(arguments: TestDatabases.available)
    func theAdminAPISchedulesADowngrade(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            try await PlanChangeSupportTests.catalog(server, app)
            let bought = try await server.grant(
                app,
                #"{"app_user_id": "api-2", "product_id": "annual", "is_sandbox": true, "store": "rc_billing", "price": {"amount": "49.99", "currency": "USD"}}"#
            )
            let path = "/admin/v1/apps/\(app.id)/purchases/\(try #require(try bought.string("purchase.id")))/plan"
            let scheduled = try await server.send(.post, path, key: app.secret, json: #"{"product_id": "monthly"}"#)
            let stays = try scheduled.string("product_id")
            #expect(scheduled.status == 200 && stays == "annual", "\(scheduled.body)")
            #expect(try scheduled.string("scheduled_plan.product_id") == "monthly")
            #expect(try scheduled.object().value(at: "scheduled_plan.price.amount_micros") as? Int == 4_990_000)
            let kept = try await server.send(.post, path, key: app.secret, json: #"{"product_id": "annual"}"#)
            #expect(kept.status == 200 && !kept.body.contains("scheduled_plan"))
        }
    }
}
