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

/// Changing plan in the buyer's portal, the admin API and the console: the other plans of the subscription's group, in its currency; a sandbox
/// subscription switched here, a Stripe one through Stripe, which its webhook then applies.
@Suite struct PlanChangeSupportTests {
    /// Monthly (level 2) and yearly (level 1) plans of group `pro` in USD, a plan of the group priced only in EUR, and a
    /// subscription of another group.
    static func catalog(_ server: TestServer, _ app: CreatedAppKeys) async throws {
        for product in [
            #"{"id": "monthly", "type": "subscription", "period": "P1M", "entitlements": ["pro"], "display_name": "Pro monthly", "subscription_group": "pro", "group_level": 2, "price": {"amount": "4.99", "currency": "USD"}}"#,
            #"{"id": "annual", "type": "subscription", "period": "P1Y", "entitlements": ["pro", "extra"], "display_name": "Pro yearly", "subscription_group": "pro", "group_level": 1, "price": {"amount": "49.99", "currency": "USD"}}"#,
            #"{"id": "euro", "type": "subscription", "period": "P1M", "entitlements": ["pro"], "subscription_group": "pro", "group_level": 1, "price": {"amount": "4.49", "currency": "EUR"}}"#,
            #"{"id": "other", "type": "subscription", "period": "P1M", "entitlements": ["pro"], "subscription_group": "side", "price": {"amount": "1.99", "currency": "USD"}}"#,
        ] {
            let reply = try await server.send(.post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: product)
            #expect(reply.status == 201, "\(reply.body)")
        }
        try await SupportActionsTests.withEndpoint(server, app)
    }

    /// Signs `email` in to the portal through the e-mailed link; the session cookie.
    static func signIn(_ server: TestServer, _ smtp: SMTPTestServer, _ app: CreatedAppKeys, email: String) async throws -> String {
        _ = await server.deps.mailer?.drain()
        _ = try await PortalTests.ask(server, app.id, email: email)
        _ = await server.deps.mailer?.drain()
        let mail = try #require(try smtp.received().last { $0.subject.contains("Sign in") })
        return try await PortalTests.signIn(server, path: try PortalTests.signInLink(in: mail))
    }

    @Test(arguments: TestDatabases.available)
    func aSandboxSubscriptionSwitchesPlanHere(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                let app = try await server.createApp()
                try await Self.catalog(server, app)
                let bought = try await server.grant(
                    app,
                    #"{"app_user_id": "web-1", "product_id": "monthly", "email": "buyer@example.com", "is_sandbox": true, "store": "rc_billing", "price": {"amount": "4.99", "currency": "USD"}}"#
                )
                let purchaseID = try #require(try bought.string("purchase.id"))
                let session = try await Self.signIn(server, smtp, app, email: "buyer@example.com")
                let home = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session])
                let csrf = try ConsoleOperationsTests.csrf(home)
                #expect(home.body.contains("Change plan…") && home.body.contains("Switch plan"))
                #expect(home.body.contains(#"<input type="radio" name="product" value="annual" required> Pro yearly · $49.99 / year"#))
                #expect(
                    !home.body.contains(#"name="product" value="euro""#) && !home.body.contains(#"name="product" value="other""#),
                    "another currency, another group")

                // A plan not offered, or none, changes nothing and says so on the page.
                for product in ["euro", "other", ""] {
                    let refused = try await ConsoleTests.post(
                        server, "/account/\(app.id)/purchases/\(purchaseID)/plan", ["csrf": csrf, "product": product], cookie: session)
                    #expect(refused.status == 303 && refused.headers[.location] == "/account/\(app.id)?notice=plan-refused", "\(product)")
                }
                let page = try await server.send(.get, "/account/\(app.id)?notice=plan-refused", key: nil, headers: [.cookie: session])
                #expect(page.body.contains(#"class="notice notice--warn" role="status">No plan was changed"#))
                #expect(try await server.deps.store.purchase(appID: app.id, id: purchaseID).productID == "monthly")

                let switched = try await ConsoleTests.post(
                    server, "/account/\(app.id)/purchases/\(purchaseID)/plan", ["csrf": csrf, "product": "annual"], cookie: session)
                #expect(switched.headers[.location] == "/account/\(app.id)?notice=plan-changed")
                let purchase = try await server.deps.store.purchase(appID: app.id, id: purchaseID)
                #expect(purchase.productID == "annual" && purchase.price == Price(amountMicros: 49_990_000, currency: "USD"))
                #expect(purchase.expiresDate == Calendar(identifier: .gregorian).date(byAdding: .year, value: 1, to: TestServer.start))
                let info = try await server.send(.get, "/v1/subscribers/web-1", key: app.secret).object()
                #expect(info.value(at: "subscriber.entitlements.extra.product_identifier") as? String == "annual")
                let events = try await SupportActionsTests.events(server, app, transaction: purchase.storeTransactionID)
                let change = try #require(events.last)
                #expect(change["type"] as? String == "PRODUCT_CHANGE" && change["product_id"] as? String == "monthly")
                #expect(change["new_product_id"] as? String == "annual")
                let audit = try await server.deps.store.auditLog(appID: app.id, limit: 20).first { $0.action == "purchase.change_plan" }
                #expect(audit?.actor == "customer:portal" && audit?.detail == "from monthly to annual")
                // The buyer is told, at a real SMTP server: the new plan, its price and when it renews.
                _ = await server.deps.mailer?.drain()
                let notice = try #require(try smtp.received().last { $0.subject.contains("plan has changed") })
                let text = try #require(notice.body("text/plain"))
                #expect(notice.rcptTos == ["buyer@example.com"] && text.contains("Pro yearly") && text.contains("$49.99 / year"))
                #expect(text.contains("June 1, 2027"), "\(text)")

                // Now yearly, the monthly plan is the one offered; once set to end, none is.
                let after = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session])
                #expect(after.body.contains(#"value="monthly" required> Pro monthly · $4.99 / month"#) && !after.body.contains(#"value="annual""#))
                _ = try await ConsoleTests.post(server, "/account/\(app.id)/purchases/\(purchaseID)/cancel", ["csrf": csrf], cookie: session)
                let ending = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session])
                #expect(!ending.body.contains("Change plan…"))
                let late = try await ConsoleTests.post(
                    server, "/account/\(app.id)/purchases/\(purchaseID)/plan", ["csrf": csrf, "product": "monthly"], cookie: session)
                #expect(late.status == 409 && late.body.contains("resume it before changing its plan"))
                #expect(late.headers[.contentType]?.hasPrefix("text/html") == true)
            }
        }
    }

    /// A Stripe subscription: the plan's Stripe Price (made now), the subscription's item read, then the item given the
    /// new Price with Stripe's proration; the webhook that follows makes the purchase the new plan.
    @Test func aStripeSubscriptionSwitchesThroughStripe() async throws {
        let recorded = NIOLockedValueBox<[(method: String, path: String, form: String)]>([])
        let router = Router()
        router.post("/v1/prices") { request, _ -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 1 << 16))
            recorded.withLockedValue { $0.append(("POST", request.uri.path, body)) }
            return Response(
                status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"id": "price_annual_usd"}"#)))
        }
        router.get("/v1/subscriptions/{id}") { request, _ -> Response in
            recorded.withLockedValue { $0.append(("GET", request.uri.path, "")) }
            let subscription = #"""
                {"id": "sub_plan", "object": "subscription", "status": "active", "customer": "cus_9", "metadata": {},
                 "items": {"object": "list", "data": [{"id": "si_1", "price": {"id": "price_monthly", "currency": "usd", "unit_amount": 499}}]}}
                """#
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: subscription)))
        }
        // Set: Stripe holds the next switch until its payment goes through (`pending_update`).
        let holds = NIOLockedValueBox(false)
        router.post("/v1/subscriptions/{id}") { request, _ -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 1 << 16))
            recorded.withLockedValue { $0.append(("POST", request.uri.path, body)) }
            let pending = holds.withLockedValue { $0 } ? #"{"expires_at": 1900000000, "subscription_items": []}"# : "null"
            let answer = #"{"id": "sub_plan", "object": "subscription", "pending_update": \#(pending)}"#
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: answer)))
        }
        let fake = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await fake.test(.live) { client in
            let stripe = try StripeSettings(secretKey: "sk_test_123", apiBase: URL(string: "http://127.0.0.1:\(try #require(client.port))")!)
            try await SMTPTestServer.with { smtp in
                try await TestServer.with(
                    .sqlite, mail: try EmailFlowTests.settings(port: smtp.port), stripeWebhookSecret: StripeWebhookTests.secret, stripe: stripe
                ) { server in
                    let app = try await server.createApp()
                    try await Self.catalog(server, app)
                    let checkout = StripeWebhookTests.session(
                        "plan", app: app.id, product: "monthly", mode: "subscription", subscription: "sub_plan", paymentIntent: nil)
                    #expect(try await StripeWebhookTests.post(server, checkout).status == 200)
                    let purchase = try #require(try await StripeWebhookTests.purchase(server, app, transaction: "sub_plan"))
                    let session = try await Self.signIn(server, smtp, app, email: "payer@example.com")
                    let home = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session])
                    #expect(home.body.contains(#"value="annual" required> Pro yearly · $49.99 / year"#))

                    // The bank asks the buyer to confirm the charge: the portal says nothing changed yet, and why.
                    holds.withLockedValue { $0 = true }
                    let held = try await ConsoleTests.post(
                        server, "/account/\(app.id)/purchases/\(purchase.id)/plan",
                        ["csrf": try ConsoleOperationsTests.csrf(home), "product": "annual"], cookie: session)
                    #expect(held.headers[.location] == "/account/\(app.id)?notice=plan-awaits-payment")
                    let page = try await server.send(.get, held.headers[.location] ?? "", key: nil, headers: [.cookie: session])
                    #expect(page.body.contains(#"class="notice notice--warn" role="status">Your plan hasn’t changed yet"#))
                    #expect(try await server.deps.store.purchase(appID: app.id, id: purchase.id).productID == "monthly")
                    holds.withLockedValue { $0 = false }

                    let switched = try await ConsoleTests.post(
                        server, "/account/\(app.id)/purchases/\(purchase.id)/plan",
                        ["csrf": try ConsoleOperationsTests.csrf(home), "product": "annual"],
                        cookie: session)
                    #expect(switched.headers[.location] == "/account/\(app.id)?notice=plan-requested")
                    let calls = recorded.withLockedValue { $0 }
                    #expect(
                        calls.map { "\($0.method) \($0.path)" } == [
                            "POST /v1/prices", "GET /v1/subscriptions/sub_plan", "POST /v1/subscriptions/sub_plan",
                            "GET /v1/subscriptions/sub_plan", "POST /v1/subscriptions/sub_plan",
                        ], "the Price is made once")
                    #expect(
                        calls.first?.form.contains("unit_amount=4999") == true && calls.first?.form.contains("metadata[product_id]=annual") == true)
                    #expect(
                        calls.last?.form
                            == "items[0][id]=si_1&items[0][price]=price_annual_usd&proration_behavior=always_invoice&payment_behavior=pending_if_incomplete"
                    )
                    #expect(try await server.deps.store.purchase(appID: app.id, id: purchase.id).productID == "monthly", "until Stripe says so")
                    let asked = try await server.deps.store.auditLog(appID: app.id, limit: 20).first { $0.action == "purchase.change_plan" }
                    #expect(asked?.detail == "asked Stripe to switch from monthly to annual (price_annual_usd)")

                    // Stripe's update names the Price Redeem made (kept with the plan's price): the purchase is now yearly.
                    let updated = StripeWebhookTests.subscription(
                        "switched", type: "customer.subscription.updated", subscription: "sub_plan", cancelAtPeriodEnd: false,
                        price: StripeWebhookTests.price("price_annual_usd", amount: 4999),
                        periodEnd: TestServer.start.addingTimeInterval(86_400 * 365))
                    #expect(try await StripeWebhookTests.post(server, updated).status == 200)
                    #expect(try await server.deps.store.purchase(appID: app.id, id: purchase.id).productID == "annual")
                    _ = await server.deps.mailer?.drain()
                    #expect(try smtp.received().filter { $0.subject.contains("plan has changed") }.count == 1, "the buyer is told once")
                }
            }
        }
    }

    /// The admin API (as the CLI with `--server` calls it) and the console switch the same way, audited under who did it;
    /// a plan not offered is a 422 naming those that are.
    @Test(arguments: TestDatabases.available)
    func theAdminAPIAndTheConsoleSwitchPlans(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createApp()
            try await Self.catalog(server, app)
            func buy(_ user: String) async throws -> String {
                try #require(
                    try await server.grant(
                        app,
                        #"{"app_user_id": "\#(user)", "product_id": "monthly", "is_sandbox": true, "store": "rc_billing", "price": {"amount": "4.99", "currency": "USD"}}"#
                    ).string("purchase.id"))
            }
            let apiID = try await buy("api-user")
            let path = "/admin/v1/apps/\(app.id)/purchases/\(apiID)/plan"
            let wrong = try await server.send(.post, path, key: app.secret, json: #"{"product_id": "other"}"#)
            #expect(wrong.status == 422 && wrong.body.contains("must be one of: annual"), "\(wrong.body)")
            let switched = try await server.send(.post, path, key: app.secret, json: #"{"product_id": "annual"}"#)
            let switchedTo = try switched.string("product_id")
            #expect(switched.status == 200 && switchedTo == "annual", "\(switched.body)")
            // Sent again (a retry): done already, nothing changes or is audited twice.
            let again = try await server.send(.post, path, key: app.secret, json: #"{"product_id": "annual"}"#)
            let againTo = try again.string("product_id")
            #expect(again.status == 200 && againTo == "annual")
            let wrongNow = try await server.send(.post, path, key: app.secret, json: #"{"product_id": "euro"}"#)
            #expect(wrongNow.status == 422 && wrongNow.body.contains("must be one of: monthly"), "the plan it is on is not offered")
            _ = try await server.send(.post, "/admin/v1/apps/\(app.id)/purchases/\(apiID)/cancel", key: app.secret)
            let ending = try await server.send(.post, path, key: app.secret, json: #"{"product_id": "monthly"}"#)
            #expect(ending.status == 409 && ending.body.contains("resume it before changing its plan"))
            let audit = try await server.deps.store.auditLog(appID: app.id, limit: 20).filter { $0.action == "purchase.change_plan" }
            #expect(audit.count == 1 && audit.first?.actor.hasPrefix("key:") == true)

            // The console: the customer's purchase offers the other plan behind a ticked box.
            let consoleID = try await buy("console-user")
            let owner = try await ConsoleTests.signedInOwner(server)
            let customer = try await ConsoleCustomerTests.customerPath(server, appID: app.id, query: "console-user", cookie: owner)
            let page = try await ConsoleCustomerTests.get(server, customer, cookie: owner)
            #expect(
                page.body.contains(#"<input type="radio" name="product_id" value="annual" required> Pro yearly (annual) · 49.99 USD / P1Y</label>"#))
            let csrf = try ConsoleOperationsTests.csrf(page)
            let action = "/console/apps/\(app.id)/purchases/\(consoleID)/plan"
            let unticked = try await ConsoleTests.post(server, action, ["csrf": csrf, "product_id": "annual"], cookie: owner)
            let untouched = try await server.deps.store.purchase(appID: app.id, id: consoleID)
            #expect(unticked.status == 400 && untouched.productID == "monthly")
            // A link shown before the switch: the history names the plan it was issued for, not the one after.
            let shown = try await ConsoleTests.post(
                server, "/console/apps/\(app.id)/purchases/\(consoleID)/link", ["csrf": csrf, "delivery": "show"], cookie: owner)
            #expect(shown.status == 200, "\(shown.body)")
            clock.advance(by: 60)
            let done = try await ConsoleTests.post(server, action, ["csrf": csrf, "product_id": "annual", "confirm": "yes"], cookie: owner)
            #expect(done.status == 303 && done.headers[.location]?.contains("notice=plan-changed") == true, "\(done.body)")
            #expect(try await server.deps.store.purchase(appID: app.id, id: consoleID).productID == "annual")
            let byOperator = try await server.deps.store.auditLog(appID: app.id, limit: 20).first {
                $0.action == "purchase.change_plan" && $0.objectID == consoleID
            }
            #expect(byOperator?.actor.hasPrefix("operator:") == true && byOperator?.detail == "from monthly to annual")
            // The history says what was bought, then the switch.
            let history = try await ConsoleCustomerTests.get(server, customer, cookie: owner).body
            #expect(history.contains("Bought (sandbox) Pro monthly") && history.contains("4.99 USD · Sandbox checkout"))
            #expect(history.contains("Plan changed to Pro yearly") && history.contains("from Pro monthly"))
            let issued = try #require(history.range(of: "Redemption link issued"))
            let line = String(history[issued.upperBound...].prefix(300))
            #expect(line.contains("Pro monthly · expires") && !line.contains("Pro yearly"), "the plan at the time: \(line)")
        }
    }
}
