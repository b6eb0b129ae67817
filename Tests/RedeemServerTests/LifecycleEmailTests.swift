import Foundation
import HTTPTypes
import RedeemCore
import RedeemStore
import RedeemTestSupport
import Testing

@testable import RedeemServer

/// The buyer's lifecycle notices (`BuyerNotices`), read at a real SMTP server on loopback: renewal turned off, a refund,
/// a failed renewal payment. Each goes out once per change, in the buyer's language, only for a purchase one of
/// Redeem's checkouts sold, and never while e-mail is off.
@Suite struct LifecycleEmailTests {
    static let english = BuyerLanguages.bundled.english

    static func kinds(_ server: TestServer, _ purchaseID: String) async throws -> [QueuedEmail.Kind] {
        try await server.deps.store.emails(purchaseID: purchaseID).map(\.email.kind)
    }

    /// An operator's cancellation and refund of a sandbox-checkout subscription bought in German: German notices, the
    /// day access ends, the portal's button; turning renewal off again within the hour sends no second one.
    /// The path of a notice's button: a portal sign-in link.
    static func buttonPath(_ text: String, _ app: CreatedAppKeys) throws -> String {
        String(try #require(text.firstMatch(of: /https:\/\/pay\.example\.com(\/account\/[^\/\s]+\/sign-in\/[A-Za-z0-9_-]{43})/)).1)
    }

    @Test(arguments: TestDatabases.available) func sandboxNoticesSpeakTheBuyersLanguage(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        let german = try EmailLanguageTests.texts("de")
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, clock: clock, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                let app = try await CheckoutTests.shop(server)
                let bought = try await server.grant(
                    app,
                    #"{"app_user_id": "kai", "product_id": "monthly", "email": "kai@example.com", "is_sandbox": true, "store": "rc_billing", "language": "de"}"#
                )
                let id = try #require(try bought.string("purchase.id"))
                let purchases = "/admin/v1/apps/\(app.id)/purchases/\(id)"
                #expect(await server.deps.mailer?.drain() == 0, "the server API sends no receipt unless asked")

                #expect(try await server.send(.post, purchases + "/cancel", key: app.secret).status == 200)
                #expect(await server.deps.mailer?.drain() == 1)
                let off = try #require(try smtp.received().last)
                #expect(off.rcptTos == ["kai@example.com"])
                #expect(off.subject == german.format("mail.renewal_off.subject", ["appName": "Shop"]))
                let text = try #require(off.body("text/plain"))
                let html = try #require(off.body("text/html"))
                #expect(text.contains(german["mail.renewal_off.heading"]) && text.contains("Pro Monthly"), "\(text)")
                #expect(text.contains("\(german["mail.notice.until"]): 1. Juli 2026"), "the day the paid month ends, in German: \(text)")
                // The button signs the buyer in to the portal once, so resuming needs no second e-mail.
                let button = try Self.buttonPath(text, app)
                #expect(text.contains("\(german["mail.renewal_off.button"]):\nhttps://pay.example.com\(button)"), "\(text)")
                #expect(html.contains("<html lang=\"de\"") && html.contains(">\(german["mail.renewal_off.button"])</a>"))
                #expect(html.contains(#"href="https://pay.example.com\#(button)""#))
                let session = try await PortalTests.signIn(server, path: button)
                let portal = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session])
                #expect(portal.status == 200 && portal.body.contains("Pro Monthly"))
                #expect(try await server.send(.get, button, key: nil).status == 410, "used once")
                #expect(!text.contains("won’t renew") && !html.contains("{{"), "no English, no tag left unfilled")

                // Resumed and turned off again at once: one notice an hour.
                #expect(try await server.send(.post, purchases + "/resume", key: app.secret).status == 200)
                #expect(try await server.send(.post, purchases + "/cancel", key: app.secret).status == 200)
                #expect(await server.deps.mailer?.drain() == 0)
                clock.advance(by: 3601)
                #expect(try await server.send(.post, purchases + "/resume", key: app.secret).status == 200)
                #expect(try await server.send(.post, purchases + "/cancel", key: app.secret).status == 200)
                #expect(await server.deps.mailer?.drain() == 1)
                // A notice's link lasts a week, not the quarter hour of one the buyer asks for.
                let later = try Self.buttonPath(try #require(try smtp.received().last?.body("text/plain")), app)
                clock.advance(by: PortalRules.signInLinkLifetime + 1)
                #expect(try await server.send(.get, later, key: nil).status == 200)
                clock.advance(by: PortalRules.noticeLinkLifetime - PortalRules.signInLinkLifetime)
                let expired = try await server.send(.get, later, key: nil)
                #expect(expired.status == 410, "expired")
                #expect(expired.body.contains(#"action="/account/\#(app.id)/sign-in""#), "and its page asks for a new one: \(expired.body)")

                #expect(try await server.send(.post, purchases + "/refund", key: app.secret).status == 200)
                #expect(await server.deps.mailer?.drain() == 1)
                let refund = try #require(try smtp.received().last)
                #expect(refund.subject == german.format("mail.refunded.subject", ["appName": "Shop"]))
                let refundText = try #require(refund.body("text/plain"))
                #expect(refundText.contains(german.format("mail.refunded.lead", ["productName": "Pro Monthly", "appName": "Shop"])), "\(refundText)")
                #expect(refundText.contains("\(german["mail.notice.refunded_on"]): 8. Juni 2026"), "a week on: \(refundText)")
                #expect(!refundText.contains(german["mail.renewal_off.button"]), "a refund has no button, only the portal's line")
                #expect(refundText.contains("https://pay.example.com/account/\(app.id)"))
                // Refunded twice: nothing more.
                #expect(try await server.send(.post, purchases + "/refund", key: app.secret).status == 409)
                #expect(try await Self.kinds(server, id) == [.renewalOff, .renewalOff, .refunded])

                // A purchase no checkout of Redeem's sold (recorded from another store) is the store's to tell about.
                let elsewhere = try await server.grant(
                    app, #"{"app_user_id": "bo", "product_id": "monthly", "email": "bo@example.com", "is_sandbox": true, "store": "external"}"#)
                let elsewhereID = try #require(try elsewhere.string("purchase.id"))
                #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/purchases/\(elsewhereID)/cancel", key: app.secret).status == 200)
                #expect(try await Self.kinds(server, elsewhereID).isEmpty)
            }
        }
    }

    /// Stripe's events: a failed renewal payment, renewal turned off, a refund. A redelivered event sends nothing more.
    @Test(arguments: TestDatabases.available) func stripeEventsNotifyOncePerChange(_ backend: TestBackend) async throws {
        let english = Self.english
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port), stripeWebhookSecret: StripeWebhookTests.secret) {
                server in
                let app = try await server.createAppWithCatalog()
                let checkout = StripeWebhookTests.session(
                    "n1", app: app.id, product: "monthly", mode: "subscription", subscription: "sub_n1", paymentIntent: nil)
                #expect(try await StripeWebhookTests.post(server, checkout).status == 200)
                let purchase = try #require(try await StripeWebhookTests.purchase(server, app, transaction: "sub_n1"))
                _ = await server.deps.mailer?.drain()
                let before = try smtp.received().count

                let failed = StripeWebhookTests.invoice(
                    "n1fail", type: "invoice.payment_failed", subscription: "sub_n1", reason: "subscription_cycle", periodEnd: TestServer.start)
                #expect(try await StripeWebhookTests.post(server, failed).status == 200)
                #expect(await server.deps.mailer?.drain() == 1)
                let payment = try #require(try smtp.received().last)
                #expect(payment.subject == english.format("mail.payment_failed.subject", ["appName": "Test App"]))
                #expect(payment.rcptTos == ["payer@example.com"])
                let html = try #require(payment.body("text/html"))
                #expect(html.contains(english.format("mail.payment_failed.lead", ["productName": "monthly"])))
                #expect(html.contains(">Update your payment method</a>") && html.contains("$4.99"), "\(html)")
                // Stripe sends it again: applied once, mailed once.
                #expect(try await StripeWebhookTests.post(server, failed).status == 200)
                #expect(await server.deps.mailer?.drain() == 0)

                _ = try await StripeWebhookTests.post(
                    server,
                    StripeWebhookTests.subscription(
                        "n1cancel", type: "customer.subscription.updated", subscription: "sub_n1", cancelAtPeriodEnd: true, feedback: "too_expensive")
                )
                #expect(await server.deps.mailer?.drain() == 1)
                #expect(try smtp.received().last?.subject == english.format("mail.renewal_off.subject", ["appName": "Test App"]))
                let renewalOff = try #require(try smtp.received().last?.body("text/plain"))
                #expect(renewalOff.contains("Yours until: "), "\(renewalOff)")

                let oneTime = StripeWebhookTests.session(
                    "n2", app: app.id, product: "lifetime", mode: "payment", subscription: nil, paymentIntent: "pi_n2")
                #expect(try await StripeWebhookTests.post(server, oneTime).status == 200)
                let lifetime = try #require(try await StripeWebhookTests.purchase(server, app, transaction: "cs_test_n2"))
                _ = await server.deps.mailer?.drain()
                #expect(try await StripeWebhookTests.post(server, StripeWebhookTests.refund("n2r", paymentIntent: "pi_n2")).status == 200)
                #expect(await server.deps.mailer?.drain() == 1)
                let refund = try #require(try smtp.received().last)
                #expect(refund.subject == "Your Test App refund")
                #expect(try #require(refund.body("text/plain")).contains("Refunded: "))
                #expect(try smtp.received().count - before == 4)
                #expect(try await Self.kinds(server, purchase.id).filter { $0 != .receipt } == [.paymentFailed, .renewalOff])
                #expect(try await Self.kinds(server, lifetime.id).filter { $0 != .receipt } == [.refunded])
            }
        }
    }

    /// With e-mail off, the changes apply and nothing is queued to be sent later.
    @Test(arguments: TestDatabases.available) func nothingIsQueuedWhileEmailIsOff(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, stripeWebhookSecret: StripeWebhookTests.secret) { server in
            let app = try await server.createAppWithCatalog()
            let checkout = StripeWebhookTests.session(
                "off", app: app.id, product: "monthly", mode: "subscription", subscription: "sub_off", paymentIntent: nil)
            #expect(try await StripeWebhookTests.post(server, checkout).status == 200)
            let failed = StripeWebhookTests.invoice(
                "offfail", type: "invoice.payment_failed", subscription: "sub_off", reason: "subscription_cycle", periodEnd: TestServer.start)
            #expect(try await StripeWebhookTests.post(server, failed).status == 200)
            let purchase = try #require(try await StripeWebhookTests.purchase(server, app, transaction: "sub_off"))
            #expect(purchase.billingIssuesDetectedAt != nil)
            #expect(try await Self.kinds(server, purchase.id).isEmpty)
        }
    }

    /// Cancelled on the portal's Japanese page: the notice speaks the page's language, not the purchase's (none).
    @Test(arguments: TestDatabases.available) func thePortalsPageChoosesTheLanguage(_ backend: TestBackend) async throws {
        let japanese = try EmailLanguageTests.texts("ja")
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                let app = try await server.createAppWithCatalog()
                let bought = try await server.grant(
                    app,
                    #"{"app_user_id": "web-1", "product_id": "monthly", "email": "\#(PortalTests.buyer)", "is_sandbox": true, "store": "rc_billing"}"#
                )
                let purchaseID = try #require(try bought.string("purchase.id"))
                _ = try await PortalTests.ask(server, app.id, email: PortalTests.buyer)
                #expect(await server.deps.mailer?.drain() == 1)
                let session = try await PortalTests.signIn(server, path: try PortalTests.signInLink(in: try #require(try smtp.received().last)))
                let home = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session, .acceptLanguage: "ja-JP"])
                let cancelled = try await server.send(
                    .post, "/account/\(app.id)/purchases/\(purchaseID)/cancel", key: nil,
                    raw: ConsoleTests.formBody(["csrf": try ConsoleOperationsTests.csrf(home)]),
                    headers: [.contentType: "application/x-www-form-urlencoded", .cookie: session, .acceptLanguage: "ja-JP"])
                #expect(cancelled.status == 303, "\(cancelled.body)")
                #expect(await server.deps.mailer?.drain() == 1)
                let notice = try #require(try smtp.received().last)
                #expect(notice.subject == japanese.format("mail.renewal_off.subject", ["appName": "Test App"]))
                #expect(try #require(notice.body("text/html")).contains("<html lang=\"ja\""))
            }
        }
    }
}
