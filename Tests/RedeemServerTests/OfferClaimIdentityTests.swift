import Foundation
import HTTPTypes
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// On the web a buyer is known by their e-mail address (each claim starts a new anonymous customer): one address claims
/// an offer once, eligibility counts every purchase of the address, a refused claim says why with the form kept, and a
/// claim is checked again against the app user it is redeemed to.
@Suite struct OfferClaimIdentityTests {
    /// Opens the code's page and claims it with `email`; the landing page.
    static func claim(_ server: TestServer, _ app: CreatedAppKeys, code: String, email: String) async throws -> TestServer.Reply {
        let page = try await server.send(.get, "/redeem?ctx=offercodes&id=\(app.id)&code=\(code)", key: nil)
        let claimID = try OfferCodePageTests.claimID(page)
        let encoded = email.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? email
        let form = "ctx=offercodes&id=\(app.id)&code=\(code)&claim_id=\(claimID)&email=\(encoded)"
        return try await server.landing(try await server.send(.post, "/redeem", key: nil, json: form, headers: CheckoutTests.form))
    }

    static func token(_ page: TestServer.Reply) throws -> String {
        String(try #require(page.body.firstMatch(of: /https:\/\/pay\.example\.com\/r\/([A-Za-z0-9_-]{43})/)).output.1)
    }

    @Test(arguments: TestDatabases.available)
    func oneAddressClaimsAnOfferOnceWhateverTheCode(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            let offer = try await OfferCodeAPITests.offer(server, app, OfferCodeAPITests.trial)
            try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "SPRING", cap: 3)
            let oneTime = try await OfferCodeAPITests.batch(server, app, offer: offer, count: 1)
            let first = try await Self.claim(server, app, code: oneTime[0], email: "ann@example.com")
            #expect(first.body.contains("Thank you"), "\(first.body)")
            // A free trial claimed: nothing was bought, so the page does not thank for a purchase.
            #expect(first.body.contains("<h1>It’s yours</h1>") && !first.body.contains("Thank you for your purchase"))
            // The same person again, with a custom code and the address in another case: refused, in words, form kept.
            let again = try await Self.claim(server, app, code: "SPRING", email: "Ann@Example.com")
            #expect(again.status == 409)
            #expect(again.body.contains("already been claimed with this e-mail address"))
            #expect(again.body.contains(#"value="Ann@Example.com""#), "the form keeps what was typed")
            #expect(again.body.contains("Claim offer"))
            // The cap is for other people: the code is still there for them.
            let codes = try await server.deps.store.customCodes(appID: app.id, offerID: offer)
            #expect(codes.first?.redemptionCount == 0)
            #expect(try await Self.claim(server, app, code: "SPRING", email: "bea@example.com").body.contains("Thank you"))
            // Two claims of one address at once: one wins.
            let racing = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 { group.addTask { try await Self.claim(server, app, code: "SPRING", email: "cy@example.com").status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            // The others are refused: as claimed before, or (a claim that read the winner's purchase before its record)
            // as no longer a new subscriber.
            #expect(racing.filter { $0 == 200 }.count == 1, "\(racing)")
            #expect(racing.allSatisfy { [200, 403, 409].contains($0) }, "\(racing)")
            #expect(try await server.deps.store.purchases(appID: app.id, email: "cy@example.com").count == 1)
        }
    }

    @Test(arguments: TestDatabases.available)
    func anAddressWithASubscriptionIsNotANewSubscriber(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            _ = try await server.grant(
                app, #"{"app_user_id": "$RCAnonymousID:0123456789abcdef0123456789abcdef", "product_id": "monthly", "email": "sub@example.com"}"#)
            let offer = try await OfferCodeAPITests.offer(server, app, OfferCodeAPITests.trial)
            try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "NEWONLY", cap: 5)
            let refused = try await Self.claim(server, app, code: "NEWONLY", email: "SUB@example.com")
            #expect(refused.status == 403)
            #expect(refused.body.contains("does not qualify for this offer"))
            #expect(refused.body.contains("For new subscribers."))
            #expect(try await server.deps.store.purchases(appID: app.id, email: "sub@example.com").count == 1, "nothing granted")
            // A typo in the address comes back on the page with the form, not as an error page.
            let typo = try await Self.claim(server, app, code: "NEWONLY", email: "someone@example")
            #expect(typo.status == 422)
            #expect(typo.body.contains("Enter the e-mail address"))
            #expect(typo.body.contains(#"value="someone@example""#))
        }
    }

    /// A paid offer is refused before checkout, so nobody pays for what they cannot have.
    @Test(arguments: TestDatabases.available)
    func aPaidOfferIsRefusedBeforeCheckout(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            _ = try await server.grant(app, #"{"app_user_id": "payer-1", "product_id": "monthly", "email": "paid@example.com"}"#)
            let offer = try await OfferCodeAPITests.offer(
                server, app,
                #"{"product_id": "monthly", "reference_name": "Intro", "payment_mode": "pay_up_front", "duration": "P3M", "price": {"amount": "2.99", "currency": "USD"}, "eligibility": ["new"]}"#
            )
            try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "INTRO3", cap: 5)
            let page = try await server.send(.get, "/sandbox/redeem?ctx=offercodes&id=\(app.id)&code=INTRO3", key: nil)
            let form = "ctx=offercodes&id=\(app.id)&code=INTRO3&claim_id=\(try OfferCodePageTests.claimID(page))&email=paid%40example.com"
            let refused = try await server.send(.post, "/sandbox/redeem", key: nil, json: form, headers: CheckoutTests.form)
            #expect(refused.status == 403)
            #expect(refused.body.contains("does not qualify"))
            #expect(!refused.body.contains("/sandbox/redeem/pay"), "no checkout")
        }
    }

    /// When the claim is redeemed in the app, it is checked again against that app user.
    @Test(arguments: TestDatabases.available)
    func aClaimIsCheckedAgainAgainstTheAppUserItIsRedeemedTo(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            let offer = try await OfferCodeAPITests.offer(server, app, OfferCodeAPITests.trial)
            let codes = try await OfferCodeAPITests.batch(server, app, offer: offer, count: 4)
            // An app user who redeemed the offer in the app before, and one who subscribed before.
            #expect(try await OfferCodeAPITests.redeem(server, app, user: "had-it", code: codes[0]).status == 200)
            _ = try await server.grant(app, #"{"app_user_id": "subscriber", "product_id": "monthly", "email": "s@example.com"}"#)
            let one = try Self.token(try await Self.claim(server, app, code: codes[1], email: "one@example.com"))
            let two = try Self.token(try await Self.claim(server, app, code: codes[2], email: "two@example.com"))
            let three = try Self.token(try await Self.claim(server, app, code: codes[3], email: "three@example.com"))

            let claimedBefore = try await RedemptionAPITests.redeem(server, app, user: "had-it", token: one)
            #expect(claimedBefore.status == 409)
            #expect(try claimedBefore.object()["code"] as? Int == 7864)
            let subscribed = try await RedemptionAPITests.redeem(server, app, user: "subscriber", token: two)
            #expect(subscribed.status == 403)
            #expect(try subscribed.object()["code"] as? Int == 7865)
            // The link stays unused: a user who may have it redeems it.
            let fresh = try await RedemptionAPITests.redeem(server, app, user: "newcomer", token: one)
            #expect(fresh.status == 200, "\(fresh.body)")
            #expect(try fresh.object().value(at: "subscriber.subscriptions.monthly.offer_code_ref_name") as? String == "Trial")
            #expect(try await RedemptionAPITests.redeem(server, app, user: "other", token: three).status == 200)
        }
    }

    /// A buyer who claimed a code sees it in the portal; a refunded purchase is listed as refunded.
    @Test(arguments: TestDatabases.available)
    func thePortalListsClaimsAndRefunds(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                let app = try await CheckoutTests.shop(server)
                let offer = try await OfferCodeAPITests.offer(server, app, OfferCodeAPITests.trial)
                try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "PORTAL", cap: 5)
                #expect(try await Self.claim(server, app, code: "PORTAL", email: "dee@example.com").body.contains("Thank you"))
                _ = await server.deps.mailer?.drain()  // the claim's receipt
                #expect(try await PortalTests.ask(server, app.id, email: "dee@example.com").status == 200)
                #expect(await server.deps.mailer?.drain() == 1)
                let mail = try #require(try smtp.received().last { $0.subject.contains("Sign in") })
                let session = try await PortalTests.signIn(server, path: try PortalTests.signInLink(in: mail))
                let home = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session])
                #expect(home.status == 200)
                #expect(home.body.contains("Pro Monthly"), "\(home.body)")
                #expect(!home.body.contains("No purchases bought on the web"))

                // A refunded sandbox purchase stays listed, as refunded, with nothing left to do.
                let bought = try await server.grant(
                    app,
                    #"{"app_user_id": "dee-phone", "product_id": "lifetime", "email": "dee@example.com", "store": "rc_billing", "is_sandbox": true}"#)
                let purchaseID = try #require(try bought.string("purchase.id"))
                let refund = try await server.send(.post, "/admin/v1/apps/\(app.id)/purchases/\(purchaseID)/refund", key: app.secret)
                #expect(refund.status == 200, "\(refund.body)")
                let after = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session])
                #expect(after.body.contains("Refunded"))
            }
        }
    }
}
