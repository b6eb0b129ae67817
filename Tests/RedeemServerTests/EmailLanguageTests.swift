import Foundation
import HTTPTypes
import RedeemCore
import RedeemStripe
import RedeemTestSupport
import Testing

@testable import RedeemServer

/// A buyer's e-mails speak the language of their checkout, read at a real SMTP server on loopback: the receipt, a new
/// link sent later by the server on its own, and a portal sign-in in the language of the page that asked for it.
@Suite struct EmailLanguageTests {
    static func texts(_ language: String) throws -> BuyerTexts { try #require(BuyerLanguages.bundled.texts[language]) }

    @Test(arguments: TestDatabases.available) func aGermanCheckoutsEmailsAreGerman(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        let german = try Self.texts("de")
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, clock: clock, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                let app = try await CheckoutTests.shop(server)
                let browser: HTTPFields = [.acceptLanguage: "de-DE,de;q=0.9,en;q=0.5"]
                let page = try await server.send(.get, "/sandbox/p/\(app.id)/lifetime/kai", key: nil, headers: browser)
                var form = CheckoutTests.form
                form[.acceptLanguage] = browser[.acceptLanguage]
                let paid = try await server.send(
                    .post, "/sandbox/p/\(app.id)/lifetime/kai", key: nil,
                    json: "email=kai%40example.com&checkout_id=\(try CheckoutTests.checkoutID(page))",
                    headers: form)
                #expect(paid.status == 303)
                let purchase = try #require(try await server.deps.store.purchases(appID: app.id, email: "kai@example.com").first)
                #expect(purchase.language == "de", "the purchase keeps the checkout's language")
                let exported = try await server.send(.get, "/admin/v1/apps/\(app.id)/customers/kai/export", key: app.secret)
                #expect((try exported.object()["purchases"] as? [[String: Any]])?.first?["language"] as? String == "de", "and its export says so")

                #expect(await server.deps.mailer?.drain() == 1)
                let receipt = try #require(try smtp.received().last)
                #expect(receipt.subject == german.format("mail.receipt.subject", ["appName": "Shop"]))
                let text = try #require(receipt.body("text/plain"))
                let html = try #require(receipt.body("text/html"))
                #expect(text.contains(german["mail.receipt.heading"]) && text.contains("1. Juni 2026") && text.contains("19,99"), "\(text)")
                #expect(html.contains("<html lang=\"de\"") && html.contains(german["mail.redeem_button"]))
                #expect(!text.contains("Thanks for your purchase") && !html.contains("Redeem purchase<"))

                // An hour later the link has expired; the app's redemption attempt has the server send a new one, in German,
                // though that request (the SDK's) names no language.
                clock.advance(by: 3601)
                let token = String(try EmailFlowTests.link(in: receipt).split(separator: "/").last!)
                #expect(try await RedemptionAPITests.redeem(server, app, user: "kai", token: token).code == 7853)
                #expect(await server.deps.mailer?.drain() == 1)
                let newLink = try #require(try smtp.received().last)
                #expect(newLink.subject == german.format("mail.new_link.subject", ["appName": "Shop"]))
                #expect(try #require(newLink.body("text/plain")).contains(german["mail.new_link.heading"]))

                // The portal's sign-in link, asked for on a Japanese page, is Japanese: the page's language wins.
                let japanese = try Self.texts("ja")
                let portal = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.acceptLanguage: "ja-JP"])
                let cookie = try #require(ConsoleTests.cookieValue(portal, "redeem_portal_form"))
                let asked = try await server.send(
                    .post, "/account/\(app.id)/sign-in", key: nil,
                    raw: ConsoleTests.formBody(["email": "kai@example.com", "csrf": try ConsoleOperationsTests.csrf(portal)]),
                    headers: [
                        .contentType: "application/x-www-form-urlencoded", .cookie: "redeem_portal_form=\(cookie)", .acceptLanguage: "ja-JP",
                    ])
                #expect(asked.status == 200 && asked.body.contains("<html lang=\"ja\">"))
                #expect(await server.deps.mailer?.drain() == 1)
                let signIn = try #require(try smtp.received().last)
                #expect(signIn.subject == japanese.format("mail.sign_in.subject", ["appName": "Shop"]))
                #expect(try #require(signIn.body("text/plain")).contains(japanese["mail.sign_in.heading"]))
                #expect(try #require(signIn.body("text/plain")).contains(TimeLeft.words(seconds: 900, texts: japanese)))
            }
        }
    }

    /// Stripe carries the checkout page's language in the session's metadata; the event's purchase keeps it (and not
    /// as a custom parameter), and the receipt is written in it. A purchase from the server API has none (English) unless
    /// its body names one.
    @Test(arguments: TestDatabases.available) func stripeCarriesTheLanguageToTheReceipt(_ backend: TestBackend) async throws {
        let french = try Self.texts("fr")
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port), stripeWebhookSecret: StripeWebhookTests.secret) {
                server in
                let app = try await server.createAppWithCatalog()
                let event = StripeWebhookTests.session(
                    "fr1", app: app.id, product: "lifetime", mode: "payment", subscription: nil, paymentIntent: "pi_fr1"
                )
                .replacingOccurrences(of: #""campaign": "fall""#, with: #""campaign": "fall", "redeem_language": "fr""#)
                #expect(try await StripeWebhookTests.post(server, event).status == 200)
                let purchase = try #require(try await StripeWebhookTests.purchase(server, app, transaction: "cs_test_fr1"))
                #expect(purchase.language == "fr" && purchase.customParams == ["campaign": "fall"])
                #expect(await server.deps.mailer?.drain() == 1)
                let receipt = try #require(try smtp.received().last)
                #expect(receipt.subject == french.format("mail.receipt.subject", ["appName": "Test App"]))

                let unknown = StripeWebhookTests.session(
                    "xx1", app: app.id, product: "lifetime", mode: "payment", subscription: nil, paymentIntent: "pi_xx1"
                )
                .replacingOccurrences(of: #""campaign": "fall""#, with: #""redeem_language": "xx""#)
                #expect(try await StripeWebhookTests.post(server, unknown).status == 200)
                #expect(try await StripeWebhookTests.purchase(server, app, transaction: "cs_test_xx1")?.language == nil, "a language Redeem lacks")
                _ = try await server.grant(
                    app, #"{"app_user_id": "bo", "product_id": "lifetime", "email": "bo@example.com", "send_receipt_email": true}"#)
                #expect(await server.deps.mailer?.drain() == 2)
                #expect(try smtp.received().suffix(2).allSatisfy { $0.subject == "Your Test App purchase" }, "English without a language")

                // The server API names the buyer's language when it knows it: the receipt speaks it.
                let granted = try await server.grant(
                    app,
                    #"{"app_user_id": "bia", "product_id": "lifetime", "email": "bia@example.com", "send_receipt_email": true, "language": "pt-BR"}"#)
                // The answer names the language Redeem speaks for it; a purchase without one names none.
                #expect(try granted.string("purchase.language") == "pt", "\(granted.body)")
                #expect(await server.deps.mailer?.drain() == 1)
                let portuguese = try Self.texts("pt")
                #expect(try smtp.received().last?.subject == portuguese.format("mail.receipt.subject", ["appName": "Test App"]))
                let refused = try await server.send(
                    .post, "/v1/purchases", key: app.secret,
                    json: #"{"app_user_id": "bia", "product_id": "lifetime", "language": "<b>"}"#,
                    headers: [HTTPField.Name("Idempotency-Key")!: "lang-bad"])
                #expect(refused.status == 422 && refused.body.contains("language"), "\(refused.body)")
                let english = try await server.grant(app, #"{"app_user_id": "bia", "product_id": "lifetime"}"#)
                #expect(!english.body.contains("\"language\""), "\(english.body)")
            }
        }
    }

    /// An offer claimed on a Korean page makes a Korean purchase.
    @Test(arguments: TestDatabases.available) func anOfferClaimKeepsThePagesLanguage(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            let offer = try await OfferCodeAPITests.offer(server, app, OfferCodeAPITests.trial)
            try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "HANGUL", cap: 5)
            let korean: HTTPFields = [.acceptLanguage: "ko-KR"]
            let page = try await server.send(.get, "/redeem?ctx=offercodes&id=\(app.id)&code=HANGUL", key: nil, headers: korean)
            #expect(page.body.contains("<html lang=\"ko\">"))
            var form = CheckoutTests.form
            form[.acceptLanguage] = "ko-KR"
            let body = "ctx=offercodes&id=\(app.id)&code=HANGUL&claim_id=\(try OfferCodePageTests.claimID(page))&email=min%40example.com"
            let claimed = try await server.landing(try await server.send(.post, "/redeem", key: nil, json: body, headers: form), headers: korean)
            let added = try Self.texts("ko").format("success.add_to_app", ["appName": "Shop"])
            #expect(claimed.status == 200 && claimed.body.contains(added), "the success page in Korean too")
            let purchase = try #require(try await server.deps.store.purchases(appID: app.id, email: "min@example.com").first)
            #expect(purchase.language == "ko")
        }
    }
}
