import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import RedeemCore
import RedeemMail
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// The buyer's portal at `/account/{app}`: sign-in by an e-mailed link (read at a real SMTP server), the purchases, a
/// new link that redeems, cancel and resume, Stripe's Billing Portal, and `management_url`.
@Suite struct PortalTests {
    static let buyer = "Portal.Buyer@Example.com"

    /// The sign-in form's token and cookie (`redeem_portal_form`).
    static func form(_ server: TestServer, _ appID: String) async throws -> (token: String, cookie: String) {
        let page = try await server.send(.get, "/account/\(appID)", key: nil)
        #expect(page.status == 200 && page.headers[.contentType]?.hasPrefix("text/html") == true)
        let cookie = try #require(ConsoleTests.cookieValue(page, "redeem_portal_form"))
        return (try ConsoleOperationsTests.csrf(page), cookie)
    }

    /// Asks for a sign-in link for `email`; returns the page.
    static func ask(_ server: TestServer, _ appID: String, email: String) async throws -> TestServer.Reply {
        let form = try await form(server, appID)
        return try await ConsoleTests.post(
            server, "/account/\(appID)/sign-in", ["email": email, "csrf": form.token], cookie: "redeem_portal_form=\(form.cookie)")
    }

    /// The sign-in link in a received message.
    static func signInLink(in mail: ReceivedMail) throws -> String {
        let text = try #require(mail.body("text/plain"))
        return String(try #require(text.firstMatch(of: /https:\/\/pay\.example\.com(\/account\/[^\/\s]+\/sign-in\/[A-Za-z0-9_-]{43})/)).1)
    }

    /// Uses a sign-in link as a browser does (open it, press the button); returns the session cookie.
    static func signIn(_ server: TestServer, path: String) async throws -> String {
        let page = try await server.send(.get, path, key: nil)
        #expect(page.status == 200, "\(page.body)")
        let cookie = try #require(ConsoleTests.cookieValue(page, "redeem_portal_form"))
        let reply = try await ConsoleTests.post(
            server, path, ["csrf": try ConsoleOperationsTests.csrf(page)], cookie: "redeem_portal_form=\(cookie)")
        #expect(reply.status == 303, "\(reply.body)")
        return "redeem_portal=" + (try #require(ConsoleTests.cookieValue(reply, "redeem_portal")))
    }

    @Test(arguments: TestDatabases.available)
    func aBuyerSignsInByEmailGetsANewLinkAndCancelsAndResumes(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                let app = try await server.createAppWithCatalog()
                let bought = try await server.grant(
                    app, #"{"app_user_id": "web-1", "product_id": "monthly", "email": "\#(Self.buyer)", "is_sandbox": true, "store": "rc_billing"}"#)
                let purchaseID = try #require(try bought.string("purchase.id"))
                #expect(try bought.string("customer_info.subscriber.management_url") == "https://pay.example.com/account/\(app.id)")
                _ = try await server.grant(
                    app, #"{"app_user_id": "other", "product_id": "lifetime", "email": "other@example.com", "store": "rc_billing"}"#)

                // The same answer for an address with purchases and one without; only the first gets a link.
                let known = try await Self.ask(server, app.id, email: "  portal.buyer@EXAMPLE.com ")
                let unknown = try await Self.ask(server, app.id, email: "nobody@example.com")
                #expect(known.status == 200 && unknown.status == 200)
                #expect(known.body.contains("Check your inbox") && unknown.body.contains("Check your inbox"))
                #expect(try await Self.ask(server, app.id, email: "not an address").status == 422)
                #expect(await server.deps.mailer?.drain() == 1)
                let mail = try #require(try smtp.received().first)
                #expect(mail.rcptTos == ["portal.buyer@example.com"] && mail.subject.contains("Sign in"))
                let path = try Self.signInLink(in: mail)

                // Opening the link uses nothing (a mail scanner may open it); pressing the button does, once.
                #expect(try await server.send(.get, path, key: nil).status == 200)
                let session = try await Self.signIn(server, path: path)
                let again = try await server.send(.get, path, key: nil)
                #expect(again.status == 410 && again.body.contains("expired"), "a link signs in once")

                let home = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session])
                #expect(home.body.contains("Your purchases") && home.body.contains("portal.buyer@example.com"))
                #expect(home.body.contains("/purchases/\(purchaseID)/link") && home.body.contains("Cancel subscription"))
                #expect(!home.body.contains("lifetime"), "another buyer's purchase is not listed")
                // A sandbox purchase says it is a test; recorded through the API, its month is a real one.
                #expect(home.body.contains("A test purchase: no money moved.") && !home.body.contains("every few minutes"))
                let csrf = try ConsoleOperationsTests.csrf(home)

                let linkPage = try await ConsoleTests.post(server, "/account/\(app.id)/purchases/\(purchaseID)/link", ["csrf": csrf], cookie: session)
                #expect(linkPage.status == 200 && linkPage.headers[.cacheControl] == "no-store")
                let token = String(try #require(linkPage.body.firstMatch(of: /https:\/\/pay\.example\.com\/r\/([A-Za-z0-9_-]{43})/)).1)
                #expect(try await RedemptionAPITests.redeem(server, app, user: "phone-1", token: token).status == 200, "the new link redeems")

                // Cancelling asks why, optionally, behind a second button; a reason not listed is refused on a page.
                #expect(home.body.contains("Cancel subscription…") && home.body.contains("Confirm cancellation"))
                #expect(home.body.contains(#"<input type="radio" name="feedback" value="too_expensive"> It’s too expensive"#))
                let bogus = try await ConsoleTests.post(
                    server, "/account/\(app.id)/purchases/\(purchaseID)/cancel", ["csrf": csrf, "feedback": "bored"], cookie: session)
                #expect(bogus.status == 303 && bogus.headers[.location] == "/account/\(app.id)?notice=reason-refused")
                let refused = try await server.send(.get, bogus.headers[.location] ?? "", key: nil, headers: [.cookie: session])
                #expect(refused.body.contains(#"class="notice notice--warn" role="status">Not cancelled: choose one of the reasons listed"#))
                #expect(try await server.deps.store.purchase(appID: app.id, id: purchaseID).unsubscribeDetectedAt == nil)
                let cancelled = try await ConsoleTests.post(
                    server, "/account/\(app.id)/purchases/\(purchaseID)/cancel", ["csrf": csrf, "feedback": "too_expensive"], cookie: session)
                #expect(cancelled.headers[.location] == "/account/\(app.id)?notice=cancelled")
                let reason = try await server.deps.store.auditLog(appID: app.id, limit: 20).first { $0.action == "purchase.cancel" }?.detail
                #expect(reason == "reason: It’s too expensive")
                let stored = try await server.deps.store.purchase(appID: app.id, id: purchaseID)
                #expect(stored.unsubscribeDetectedAt != nil && stored.isActive(at: TestServer.start), "ends with its period, not now")
                #expect(stored.cancellationFeedback == .tooExpensive, "kept for the metrics' reasons")
                let after = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session])
                #expect(after.body.contains("won’t renew") && after.body.contains("Resume subscription"))
                let resumed = try await ConsoleTests.post(
                    server, "/account/\(app.id)/purchases/\(purchaseID)/resume", ["csrf": csrf], cookie: session)
                #expect(resumed.headers[.location] == "/account/\(app.id)?notice=resumed")
                let renewing = try await server.deps.store.purchase(appID: app.id, id: purchaseID)
                #expect(renewing.unsubscribeDetectedAt == nil && renewing.cancellationFeedback == nil)
                let actions = try await server.deps.store.auditLog(appID: app.id, limit: 20).filter { $0.actor == "customer:portal" }.map(\.action)
                #expect(Set(actions) == ["purchase.link", "purchase.cancel", "purchase.resume"])

                // Someone else's purchase, a missing form token, and no session are all refused.
                let otherID = try #require(try await server.deps.store.purchases(appID: app.id, email: "other@example.com").first?.id)
                let foreign = try await ConsoleTests.post(server, "/account/\(app.id)/purchases/\(otherID)/cancel", ["csrf": csrf], cookie: session)
                #expect(foreign.status == 404 && foreign.headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(try await ConsoleTests.post(server, "/account/\(app.id)/purchases/\(purchaseID)/cancel", [:], cookie: session).status == 403)
                let anonymous = try await ConsoleTests.post(server, "/account/\(app.id)/purchases/\(purchaseID)/cancel", ["csrf": csrf], cookie: "")
                #expect(anonymous.headers[.location] == "/account/\(app.id)")

                // Signing out ends the session.
                #expect(try await ConsoleTests.post(server, "/account/\(app.id)/sign-out", ["csrf": csrf], cookie: session).status == 303)
                let out = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session])
                #expect(out.body.contains("Send me a sign-in link"))
                let info = try await server.send(.get, "/v1/subscribers/phone-1", key: app.secret)  // The link moved the purchase to the phone.
                #expect(try info.string("subscriber.management_url") == "https://pay.example.com/account/\(app.id)")
                #expect(try info.string("subscriber.subscriptions.monthly.management_url") == "https://pay.example.com/account/\(app.id)")
            }
        }
    }

    /// A sign-in page that outlived its form cookie (an hour, or a browser that kept none) is never a dead end: the
    /// form comes back with what was typed and a fresh token, and nothing is sent; the link's button likewise.
    @Test(arguments: TestDatabases.available)
    func aSignInPageThatOutlivedItsCookieComesBack(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                let app = try await server.createAppWithCatalog()
                _ = try await server.grant(
                    app, #"{"app_user_id": "web-1", "product_id": "monthly", "email": "\#(Self.buyer)", "store": "rc_billing"}"#)
                let form = try await Self.form(server, app.id)
                let stale = try await ConsoleTests.post(
                    server, "/account/\(app.id)/sign-in", ["email": Self.buyer, "csrf": form.token], cookie: "redeem_portal_form=gone")
                #expect(stale.status == 403 && stale.body.contains("This page had been open too long"), "\(stale.body)")
                #expect(stale.body.contains(#"value="\#(Self.buyer)""#) && stale.body.contains(#"action="/account/\#(app.id)/sign-in""#))
                #expect(await server.deps.mailer?.drain() == 0, "nothing was sent")
                let fresh = try #require(ConsoleTests.cookieValue(stale, "redeem_portal_form"))
                #expect(fresh != form.cookie)
                let sent = try await ConsoleTests.post(
                    server, "/account/\(app.id)/sign-in", ["email": Self.buyer, "csrf": try ConsoleOperationsTests.csrf(stale)],
                    cookie: "redeem_portal_form=\(fresh)")
                #expect(sent.status == 200 && sent.body.contains("Check your inbox"))
                #expect(await server.deps.mailer?.drain() == 1)
                let path = try Self.signInLink(in: try #require(try smtp.received().first))

                let pressed = try await ConsoleTests.post(server, path, ["csrf": "stale"], cookie: "redeem_portal_form=gone")
                #expect(pressed.status == 403 && pressed.body.contains("Press the button again") && pressed.body.contains(#"action="\#(path)""#))
                #expect(!pressed.headers[values: .setCookie].contains { $0.hasPrefix("redeem_portal=") }, "no session from it")
                let again = try await ConsoleTests.post(
                    server, path, ["csrf": try ConsoleOperationsTests.csrf(pressed)],
                    cookie: "redeem_portal_form=\(try #require(ConsoleTests.cookieValue(pressed, "redeem_portal_form")))")
                #expect(again.status == 303 && ConsoleTests.cookieValue(again, "redeem_portal") != nil, "the link still signs in")
            }
        }
    }

    @Test(arguments: TestDatabases.available) func withoutEmailThePortalSaysSoAndUnknownAppsAnswerHTML(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let page = try await server.send(.get, "/account/\(app.id)", key: nil)
            #expect(page.body.contains("can’t send e-mail") && !page.body.contains("Send me a sign-in link"))
            let cookie = try #require(ConsoleTests.cookieValue(page, "redeem_portal_form"))
            let posted = try await ConsoleTests.post(
                server, "/account/\(app.id)/sign-in", ["email": "a@example.com", "csrf": cookie],
                cookie: "redeem_portal_form=\(cookie)")
            #expect(posted.status == 503 && posted.body.contains("can’t send e-mail") && !posted.body.contains("Check your inbox"))
            let missing = try await server.send(.get, "/account/app_nope", key: nil)
            #expect(missing.status == 404 && missing.headers[.contentType]?.hasPrefix("text/html") == true)
            let bogus = try await server.send(.get, "/account/\(app.id)/sign-in/not-a-token", key: nil)
            #expect(bogus.status == 410 && bogus.body.contains("expired"))
            let noPortal = try await server.grant(app, #"{"app_user_id": "ext", "product_id": "lifetime", "store": "external"}"#)
            #expect(try noPortal.object().value(at: "customer_info.subscriber.management_url") is NSNull, "null unless bought on the web")
        }
    }

    /// A Stripe subscription is cancelled and resumed through Stripe, and its payment details open in Stripe's
    /// Billing Portal (a fake Stripe API on loopback records the calls).
    @Test func stripeSubscriptionsGoThroughStripe() async throws {
        let recorded = NIOLockedValueBox<[(method: String, path: String, form: String)]>([])
        let router = Router()
        router.post("/v1/subscriptions/{id}") { request, _ -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 1 << 16))
            recorded.withLockedValue { $0.append(("POST", request.uri.path, body)) }
            return Response(
                status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"id": "sub_two"}"#)))
        }
        router.get("/v1/subscriptions/{id}") { request, _ -> Response in
            recorded.withLockedValue { $0.append(("GET", request.uri.path, "")) }
            let subscription = #"{"id": "sub_two", "object": "subscription", "status": "active", "customer": "cus_9", "metadata": {}}"#
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: subscription)))
        }
        router.post("/v1/billing_portal/sessions") { request, _ -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 1 << 16))
            recorded.withLockedValue { $0.append(("POST", request.uri.path, body)) }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"id": "bps_1", "url": "https://billing.stripe.com/p/session/test_1"}"#)))
        }
        let fake = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await fake.test(.live) { client in
            let stripe = try StripeSettings(secretKey: "sk_test_123", apiBase: URL(string: "http://127.0.0.1:\(try #require(client.port))")!)
            try await SMTPTestServer.with { smtp in
                try await TestServer.with(
                    .sqlite, mail: try EmailFlowTests.settings(port: smtp.port), stripeWebhookSecret: StripeWebhookTests.secret, stripe: stripe
                ) { server in
                    let app = try await server.createAppWithCatalog()
                    let sub = StripeWebhookTests.session(
                        "two", app: app.id, product: "monthly", mode: "subscription", subscription: "sub_two", paymentIntent: nil)
                    #expect(try await StripeWebhookTests.post(server, sub).status == 200)
                    let purchase = try #require(try await StripeWebhookTests.purchase(server, app, transaction: "sub_two"))
                    _ = await server.deps.mailer?.drain()  // The receipt.
                    _ = try await Self.ask(server, app.id, email: "payer@example.com")
                    _ = await server.deps.mailer?.drain()
                    let mail = try #require(try smtp.received().last { $0.subject.contains("Sign in") })
                    let session = try await Self.signIn(server, path: try Self.signInLink(in: mail))
                    let home = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session])
                    #expect(home.body.contains("Payment method and invoices"))
                    let csrf = try ConsoleOperationsTests.csrf(home)

                    // The buyer's reason goes on to Stripe as its own cancellation feedback.
                    let cancel = try await ConsoleTests.post(
                        server, "/account/\(app.id)/purchases/\(purchase.id)/cancel", ["csrf": csrf, "feedback": "switched_service"],
                        cookie: session)
                    #expect(cancel.headers[.location] == "/account/\(app.id)?notice=cancel-requested")
                    let sent = recorded.withLockedValue { $0.last.map { "\($0.path) \($0.form)" } }
                    #expect(sent == "/v1/subscriptions/sub_two cancel_at_period_end=true&cancellation_details[feedback]=switched_service")
                    let asked = try await server.deps.store.auditLog(appID: app.id, limit: 20).first { $0.action == "purchase.cancel" }?.detail
                    #expect(asked == "asked Stripe to cancel at period end; reason: I’m switching to a different service")
                    let updated = StripeWebhookTests.subscription(
                        "u1", type: "customer.subscription.updated", subscription: "sub_two", cancelAtPeriodEnd: true)
                    #expect(try await StripeWebhookTests.post(server, updated).status == 200)
                    let resume = try await ConsoleTests.post(
                        server, "/account/\(app.id)/purchases/\(purchase.id)/resume", ["csrf": csrf], cookie: session)
                    #expect(resume.headers[.location] == "/account/\(app.id)?notice=resume-requested")
                    #expect(recorded.withLockedValue { $0.last?.form } == "cancel_at_period_end=false&cancel_at=")

                    let billing = try await ConsoleTests.post(
                        server, "/account/\(app.id)/purchases/\(purchase.id)/billing", ["csrf": csrf], cookie: session)
                    #expect(billing.status == 303 && billing.headers[.location] == "https://billing.stripe.com/p/session/test_1")
                    let calls = recorded.withLockedValue { $0.suffix(2).map { "\($0.method) \($0.path)" } }
                    #expect(calls == ["GET /v1/subscriptions/sub_two", "POST /v1/billing_portal/sessions"])
                    let portalForm = recorded.withLockedValue { $0.last?.form } ?? ""
                    #expect(portalForm.contains("customer=cus_9") && portalForm.contains("return_url=https%3A%2F%2Fpay.example.com%2Faccount%2F"))
                }
            }
        }
    }
}
