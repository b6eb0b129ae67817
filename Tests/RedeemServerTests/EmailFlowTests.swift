import Foundation
import HTTPTypes
import RedeemCore
import RedeemMail
import RedeemServer
import RedeemTestSupport
import Testing

/// Receipts, expired-link re-sends and new-link requests, delivered to a real SMTP server on loopback.
@Suite struct EmailFlowTests {
    static func settings(port: Int) throws -> MailSettings {
        try MailSettings(smtpURL: "smtp://127.0.0.1:\(port)?security=none", from: "receipts@redeem.test")
    }

    /// The HTTPS redemption link in a received message's text part.
    static func link(in mail: ReceivedMail) throws -> String {
        let text = try #require(mail.body("text/plain"))
        let match = try #require(text.firstMatch(of: /https:\/\/pay\.example\.com\/r\/[A-Za-z0-9_-]{43}/))
        return String(match.output)
    }

    @Test(arguments: TestDatabases.available)
    func receiptCarriesAWorkingLink(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try Self.settings(port: smtp.port)) { server in
                let app = try await server.createAppWithCatalog()
                _ = try await server.grant(
                    app,
                    #"{"app_user_id": "$RCAnonymousID:0123456789abcdef0123456789abcdef", "product_id": "lifetime", "email": "Buyer@Example.com", "send_receipt_email": true}"#
                )
                #expect(await server.deps.mailer?.drain() == 1)
                let mail = try #require(try smtp.received().first)
                #expect(mail.rcptTos == ["Buyer@Example.com"])
                #expect(mail.subject.contains("Test App"))
                // From the app by name; replies go to its support address when it has one.
                #expect(mail.from.map(\.name) == ["Test App"])
                let link = try Self.link(in: mail)
                #expect(mail.body("text/html")?.contains(link) == true)
                // The receipt says when, which order, and where to manage it.
                let text = try #require(mail.body("text/plain"))
                let purchases = try await server.deps.store.purchases(appID: app.id, email: "Buyer@Example.com")
                let purchaseID = try #require(purchases.first?.id)
                #expect(text.contains("Date: June 1, 2026") && text.contains("Order: \(purchaseID)"), "\(text)")
                #expect(text.contains("https://pay.example.com/account/\(app.id)"), "the portal link")
                let token = String(link.split(separator: "/").last!)
                let reply = try await RedemptionAPITests.redeem(server, app, user: "alice", token: token)
                #expect(reply.status == 200, "\(reply.body)")
                // Nothing left to send, and nothing is sent twice.
                #expect(await server.deps.mailer?.drain() == 0)
                #expect(try smtp.received().count == 1)
            }
        }
    }

    @Test(arguments: TestDatabases.available)
    func expiredLinksAreResentAtMostOncePerQuietPeriod(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, clock: clock, mail: try Self.settings(port: smtp.port)) { server in
                let app = try await server.createAppWithCatalog()
                let old = try RedemptionAPITests.token(
                    from: try await server.grant(app, #"{"app_user_id": "bob", "product_id": "lifetime", "email": "john@example.com"}"#))
                clock.advance(by: 3601)
                let first = try await RedemptionAPITests.redeem(server, app, user: "alice", token: old)
                #expect(first.code == 7853)
                #expect(try first.object().value(at: "purchase_redemption_error_info.resent") as? Bool == true)
                #expect(try first.object().value(at: "purchase_redemption_error_info.obfuscated_email") as? String == "j***@e***.com")
                let again = try await RedemptionAPITests.redeem(server, app, user: "alice", token: old)
                #expect(try again.object().value(at: "purchase_redemption_error_info.resent") as? Bool == false)
                #expect(await server.deps.mailer?.drain() == 1)
                let mail = try #require(try smtp.received().first)
                #expect(mail.rcptTos == ["john@example.com"])
                let fresh = String(try Self.link(in: mail).split(separator: "/").last!)
                #expect(fresh != old)
                // bob bought it, alice is identified too: the default restore behaviour transfers it.
                #expect(try await RedemptionAPITests.redeem(server, app, user: "alice", token: fresh).status == 200)
                // After the quiet period another expired attempt sends again.
                clock.advance(by: 3601)
                let later = try await RedemptionAPITests.redeem(server, app, user: "alice", token: old)
                #expect(try later.object().value(at: "purchase_redemption_error_info.resent") as? Bool == true)
            }
        }
    }

    /// Each app's e-mails come from the app by name (encoded when it is not ASCII) and answer to its support address.
    @Test(arguments: TestDatabases.available) func mailsComeFromTheAppAndAnswerToItsSupport(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try Self.settings(port: smtp.port)) { server in
                let app = try await server.createApp(#"{"name": "Café Lumen, Inc.", "support_email": "help@lumen.example"}"#)
                _ = try await server.send(
                    .post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: #"{"id": "lifetime", "type": "non_consumable"}"#)
                _ = try await server.grant(
                    app, #"{"app_user_id": "bob", "product_id": "lifetime", "email": "bob@example.com", "send_receipt_email": true}"#)
                #expect(await server.deps.mailer?.drain() == 1)
                let mail = try #require(try smtp.received().first)
                #expect(mail.from == [.init(name: "Café Lumen, Inc.", address: "receipts@redeem.test")])
                #expect(mail.replyTo == [.init(name: "", address: "help@lumen.example")])
                #expect(mail.mailFrom == "receipts@redeem.test")
                #expect(mail.defects.isEmpty, "\(mail.defects)")
            }
        }
    }

    /// The success page says a link was e-mailed only when one was: not when the app's policy gives this purchase no links.
    /// The receipt goes out either way, as RevenueCat's Web Billing sends one for every purchase: without links, a plain
    /// receipt.
    @Test(arguments: TestDatabases.available) func theSuccessPageSaysEmailedOnlyWhenItWas(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try Self.settings(port: smtp.port)) { server in
                let app = try await CheckoutTests.shop(server)
                for (buyer, policy, emailed) in [("alice", "enabled", true), ("bob", "disabled", false)] {
                    let patched = try await server.send(
                        .patch, "/admin/v1/apps/\(app.id)", key: app.secret, json: #"{"redemption_link_policy": "\#(policy)"}"#)
                    #expect(patched.status == 200, "\(patched.body)")
                    let page = try await server.send(.get, "/sandbox/p/\(app.id)/lifetime/\(buyer)", key: nil)
                    let body = "email=\(buyer)%40example.com&checkout_id=\(try CheckoutTests.checkoutID(page))"
                    let done = try await server.landing(
                        try await server.send(.post, "/sandbox/p/\(app.id)/lifetime/\(buyer)", key: nil, json: body, headers: CheckoutTests.form))
                    #expect(done.status == 200, "\(done.body)")
                    #expect(done.body.contains("e-mailed you a link") == emailed, "\(policy)")
                    #expect(await server.deps.mailer?.drain() == 1)
                    let receipt = try #require(try smtp.received().last { $0.rcptTos == ["\(buyer)@example.com"] })
                    let text = try #require(receipt.body("text/plain"))
                    #expect(receipt.subject.contains("purchase") && text.contains("lifetime") && text.contains("$19.99"), "\(text)")
                    #expect(text.contains("/r/") == emailed, "a link only where the policy gives one: \(text)")
                }
            }
        }
    }

    /// The success page and the receipt carry a link each; once the e-mailed one is redeemed, the reopened success page
    /// says the purchase was added instead of asking for one more step.
    @Test(arguments: TestDatabases.available) func theSuccessPageKnowsWhenTheEmailedLinkWasUsed(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try Self.settings(port: smtp.port)) { server in
                let app = try await CheckoutTests.shop(server)
                let page = try await server.send(.get, "/sandbox/p/\(app.id)/lifetime", key: nil)
                let body = "email=ann%40example.com&checkout_id=\(try CheckoutTests.checkoutID(page))"
                let paid = try await server.send(.post, "/sandbox/p/\(app.id)/lifetime", key: nil, json: body, headers: CheckoutTests.form)
                let done = try #require(paid.headers[.location])
                #expect(done.hasPrefix("/checkout/done/"))
                #expect(try await server.send(.get, done, key: nil).body.contains("redemption_token="))
                #expect(await server.deps.mailer?.drain() == 1)
                let mailed = try Self.link(in: try #require(try smtp.received().first))
                #expect(!done.hasSuffix(String(mailed.split(separator: "/").last!)), "two copies, two tokens")
                let redeemed = try await RedemptionAPITests.redeem(server, app, user: "ann-phone", token: String(mailed.split(separator: "/").last!))
                #expect(redeemed.status == 200, "\(redeemed.body)")
                let reopened = try await server.send(.get, done, key: nil)
                #expect(reopened.status == 200)
                #expect(reopened.body.contains("Already added to"))
                #expect(!reopened.body.contains("redemption_token="))
            }
        }
    }

    @Test(arguments: TestDatabases.available) func newLinkRequestsRevealNothingAndSendOnlyToBuyers(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try Self.settings(port: smtp.port)) { server in
                let app = try await server.createAppWithCatalog()
                _ = try await server.grant(app, #"{"app_user_id": "bob", "product_id": "lifetime", "email": "bob@example.com"}"#)
                let known = try await server.send(
                    .post, "/v1/redemption_links/request", key: app.publicSandbox, json: #"{"email": "BOB@example.com"}"#)
                let unknown = try await server.send(
                    .post, "/v1/redemption_links/request", key: app.publicSandbox, json: #"{"email": "nobody@example.com"}"#)
                #expect(known.status == 202)
                #expect(unknown.status == 202)
                #expect(known.body == unknown.body)
                #expect(
                    try await server.send(.post, "/v1/redemption_links/request", key: app.publicSandbox, json: #"{"email": "nope"}"#).status == 422)
                #expect(await server.deps.mailer?.drain() == 1)
                #expect(try smtp.received().map(\.rcptTos) == [["bob@example.com"]])
            }
        }
    }

    @Test(arguments: TestDatabases.available) func anSMTPOutageLosesNothing(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        let port = try SMTPTestServer.freePort()
        try await TestServer.with(backend, clock: clock, mail: try Self.settings(port: port)) { server in
            let app = try await server.createAppWithCatalog()
            let granted = try await server.grant(
                app, #"{"app_user_id": "bob", "product_id": "lifetime", "email": "bob@example.com", "send_receipt_email": true}"#)
            let purchaseID = try #require(try granted.string("purchase.id"))
            // Nothing listens: the attempt fails, transiently, and is kept for later.
            #expect(await server.deps.mailer?.drain() == 0)
            let queued = try await server.deps.store.emails(purchaseID: purchaseID)
            #expect(queued.count == 1)
            #expect(queued.first?.email.attempts == 1)
            #expect(queued.first?.sentAt == nil && queued.first?.failedAt == nil)
            // Not due before its backoff…
            #expect(await server.deps.mailer?.drain() == 0)
            #expect(try await server.deps.store.emails(purchaseID: purchaseID).first?.email.attempts == 1)
            // …and delivered once the server is back and the backoff has passed.
            let received = try await SMTPTestServer.with(.init(port: port)) { smtp throws -> Int in
                clock.advance(by: 31)
                #expect(await server.deps.mailer?.drain() == 1)
                return try smtp.received().count
            }
            #expect(received == 1)
            #expect(try await server.deps.store.emails(purchaseID: purchaseID).first?.sentAt != nil)
        }
    }
}
