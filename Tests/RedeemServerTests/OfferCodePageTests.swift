import Foundation
import HTTPTypes
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// The web redemption page: `/redeem?ctx=offercodes&id=…&code=…`.
@Suite struct OfferCodePageTests {
    static func claimID(_ page: TestServer.Reply) throws -> String {
        let match = try #require(page.body.firstMatch(of: /name="claim_id" value="([A-Za-z0-9_-]+)"/))
        return String(match.output.1)
    }

    @Test(arguments: TestDatabases.available)
    func showingNeverRedeemsAndClaimingAFreeOfferGivesALink(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            let offer = try await OfferCodeAPITests.offer(server, app, OfferCodeAPITests.trial)
            try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "WELCOME", cap: 1)
            let url = "/redeem?ctx=offercodes&id=\(app.id)&code=welcome"
            // Mail scanners open links: any number of GETs leaves the code unused.
            for _ in 0..<3 {
                let page = try await server.send(.get, url, key: nil)
                #expect(page.status == 200)
                #expect(page.headers[.cacheControl] == "no-store")
                #expect(page.body.contains("Pro Monthly"))
                // What is charged now and later, exactly: a trial takes no card and does not renew.
                #expect(page.body.contains("1 month free. Nothing is charged, and it does not renew."))
                #expect(page.body.contains("After that, subscribe for $4.99 / month to keep it."))
                #expect(page.body.contains("For new subscribers."))
                #expect(page.body.contains("Claim offer"))
            }
            #expect(try await server.deps.store.customCodes(appID: app.id, offerID: offer).first?.redemptionCount == 0)
            let page = try await server.send(.get, url, key: nil)
            let claim = try Self.claimID(page)
            let form = "ctx=offercodes&id=\(app.id)&code=welcome&claim_id=\(claim)&email=new%40example.com"
            let done = try await server.landing(try await server.send(.post, "/redeem", key: nil, json: form, headers: CheckoutTests.form))
            #expect(done.status == 200, "\(done.body)")
            #expect(done.body.contains("Thank you"))
            let link = try #require(done.body.firstMatch(of: /https:\/\/pay\.example\.com\/r\/([A-Za-z0-9_-]{43})/))
            // A repeated submit shows the same purchase and uses nothing more.
            let again = try await server.landing(try await server.send(.post, "/redeem", key: nil, json: form, headers: CheckoutTests.form))
            #expect(again.status == 200)
            let purchases = try await server.deps.store.purchases(appID: app.id, email: "new@example.com")
            #expect(purchases.count == 1)
            #expect(purchases.first?.offer?.referenceName == "Trial")
            #expect(purchases.first?.isSandbox == false)
            #expect(try await server.deps.store.customCodes(appID: app.id, offerID: offer).first?.redemptionCount == 1)
            // The link brings the offer into the app.
            let redeemed = try await RedemptionAPITests.redeem(server, app, user: "phone-user", token: String(link.output.1))
            #expect(redeemed.status == 200)
            #expect(try redeemed.object().value(at: "subscriber.subscriptions.monthly.offer_code_ref_name") as? String == "Trial")
            // The code is now used up for everyone else.
            let used = try await server.send(.get, url, key: nil)
            #expect(used.status == 409)
            #expect(used.body.contains("reached its redemption limit"))
        }
    }

    /// A double click sends one claim form twice at once, or more: every submit lands on the purchase's success page,
    /// none on "already claimed" (on SQLite a refusal could return before the group commit that held the first's
    /// purchase, which the refused submit then looked for on a reader, and missed).
    @Test(arguments: TestDatabases.available)
    func submitsOfOneClaimFormAtOnceAllLandOnItsPurchase(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, setup: .live) { server in
            let app = try await CheckoutTests.shop(server)
            let offer = try await OfferCodeAPITests.offer(server, app, OfferCodeAPITests.trial)
            try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "TWICE", cap: 100)
            for round in 0..<12 {
                let page = try await server.send(.get, "/redeem?ctx=offercodes&id=\(app.id)&code=twice", key: nil)
                let form = "ctx=offercodes&id=\(app.id)&code=twice&claim_id=\(try Self.claimID(page))&email=buyer\(round)%40example.com"
                try await Self.submitAtOnce(server, form)
                #expect(try await server.deps.store.purchases(appID: app.id, email: "buyer\(round)@example.com").count == 1)
            }
            #expect(try await server.deps.store.customCodes(appID: app.id, offerID: offer).first?.redemptionCount == 12)
        }
    }

    /// A double click on a code's last use: the second submit finds the code used up (by the first), and must still land
    /// on the first's purchase rather than on "reached its redemption limit" or "already used". Custom codes of one
    /// use and one-time codes alike.
    @Test(arguments: TestDatabases.available)
    func submitsOfOneClaimFormForACodesLastUseAllLandOnItsPurchase(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, setup: .live) { server in
            let app = try await CheckoutTests.shop(server)
            let offer = try await OfferCodeAPITests.offer(server, app, OfferCodeAPITests.trial)
            var codes = try await OfferCodeAPITests.batch(server, app, offer: offer, count: 4)
            for round in 0..<4 {
                try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "LAST\(round)", cap: 1)
                codes.append("LAST\(round)")
            }
            for (round, code) in codes.enumerated() {
                let page = try await server.send(.get, "/redeem?ctx=offercodes&id=\(app.id)&code=\(code)", key: nil)
                #expect(page.status == 200, "\(code): \(page.status)")
                let form = "ctx=offercodes&id=\(app.id)&code=\(code)&claim_id=\(try Self.claimID(page))&email=last\(round)%40example.com"
                try await Self.submitAtOnce(server, form)
                #expect(try await server.deps.store.purchases(appID: app.id, email: "last\(round)@example.com").count == 1, "\(code)")
            }
        }
    }

    /// Sends one claim form 4 times at once; every submit must land on the purchase's success page.
    static func submitAtOnce(_ server: TestServer, _ form: String) async throws {
        let replies = try await TestServer.atOnce {
            try await server.landing(try await server.send(.post, "/redeem", key: nil, json: form, headers: CheckoutTests.form))
        }
        for reply in replies {
            #expect(reply.status == 200 && reply.body.contains("Thank you"), "\(reply.status): \(reply.body.prefix(300))")
        }
    }

    @Test(arguments: TestDatabases.available)
    func unknownAndExpiredCodesGetAClearPage(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            let missing = try await server.send(.get, "/redeem?ctx=offercodes&id=\(app.id)&code=NOPE1234", key: nil)
            #expect(missing.status == 404)
            #expect(missing.body.contains("This code is not valid."))
            #expect(!missing.body.contains("Claim offer"))
            // The code field again, holding what was typed, so a typo is retyped rather than a dead end.
            #expect(missing.body.contains(#"name="code""#) && missing.body.contains(#"value="NOPE1234""#))
            // From a product's checkout ("Have an offer code?"), the way back to it.
            let fromCheckout = try await server.send(.get, "/sandbox/p/\(app.id)/monthly?code=NOPE1234", key: nil)
            let location = try #require(fromCheckout.headers[.location])
            #expect(location.hasSuffix("&product=monthly"))
            let refused = try await server.send(.get, location, key: nil)
            #expect(refused.status == 404 && refused.body.contains(#"href="https://pay.example.com/sandbox/p/\#(app.id)/monthly""#))
            #expect(refused.body.contains(#"name="product" value="monthly""#))
            let ask = try await server.send(.get, "/redeem?ctx=offercodes&id=\(app.id)", key: nil)
            #expect(ask.status == 200 && ask.body.contains(#"name="code""#))
            #expect(try await server.send(.get, "/redeem?ctx=other&id=\(app.id)&code=X", key: nil).status == 400)
            #expect(try await server.send(.get, "/redeem?ctx=offercodes&id=app_nope&code=X", key: nil).status == 404)
        }
    }

    @Test(arguments: TestDatabases.available)
    func guessingOnThePageIsLimitedPerIP(_ backend: TestBackend) async throws {
        var limits = RateLimits.unlimited
        limits.redeemPerIP = 3
        try await TestServer.with(backend, rateLimits: limits) { server in
            let app = try await CheckoutTests.shop(server)
            for guess in ["AAAA2222", "BBBB3333", "CCCC4444"] {
                #expect(try await server.send(.get, "/redeem?ctx=offercodes&id=\(app.id)&code=\(guess)", key: nil).status == 404)
            }
            let limited = try await server.send(.get, "/redeem?ctx=offercodes&id=\(app.id)&code=DDDD5555", key: nil)
            #expect(limited.status == 429)
            #expect(limited.headers[.retryAfter] != nil)
            // The SDK route counts the same address's guesses in its own bucket, under the same limit.
            for _ in 0..<3 { #expect(try await OfferCodeAPITests.redeem(server, app, user: "u-\(UUID())", code: "EEEE6666").code == 7860) }
            #expect(try await OfferCodeAPITests.redeem(server, app, user: "u-\(UUID())", code: "EEEE6666").status == 429)
        }
    }

    @Test(arguments: TestDatabases.available)
    func aPaidOfferGoesThroughTheSandboxCheckout(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            let offer = try await OfferCodeAPITests.offer(
                server, app,
                #"{"product_id": "monthly", "reference_name": "Half year", "payment_mode": "pay_up_front", "duration": "P6M", "price": {"amount": "9.99", "currency": "USD"}, "eligibility": ["new"]}"#
            )
            try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "HALFYEAR", cap: 5)
            let page = try await server.send(.get, "/sandbox/redeem?ctx=offercodes&id=\(app.id)&code=HALFYEAR&app_user_id=buyer-7", key: nil)
            #expect(page.body.contains("$9.99 for 6 months, paid now. It does not renew."))
            #expect(page.body.contains("Continue to checkout"))
            let claim = try Self.claimID(page)
            let fields = "ctx=offercodes&id=\(app.id)&code=HALFYEAR&claim_id=\(claim)&email=payer%40example.com&app_user_id=buyer-7"
            // Production has no checkout for offers here: a clear 503 in the app's words, nothing redeemed.
            let production = try await server.send(.post, "/redeem", key: nil, json: fields, headers: CheckoutTests.form)
            #expect(production.status == 503 && production.body.contains("doesn’t take payments on the web yet"))
            let shown = try await server.send(.get, "/redeem?ctx=offercodes&id=\(app.id)&code=HALFYEAR", key: nil)
            #expect(shown.status == 503 && !shown.body.contains("Continue to checkout"))
            let checkout = try await server.send(.post, "/sandbox/redeem", key: nil, json: fields, headers: CheckoutTests.form)
            #expect(checkout.status == 200)
            #expect(checkout.body.contains("Pay (sandbox)") && checkout.body.contains(#"action="/sandbox/redeem/pay""#))
            #expect(try await server.deps.store.customCodes(appID: app.id, offerID: offer).first?.redemptionCount == 0)
            let paid = try await server.send(.post, "/sandbox/redeem/pay", key: nil, json: fields, headers: CheckoutTests.form)
            #expect(try await server.landing(paid).status == 200, "\(paid.body)")
            let info = try await server.send(.get, "/v1/subscribers/buyer-7", key: app.publicSandbox).object()
            #expect(info.value(at: "subscriber.subscriptions.monthly.offer_discount_type") as? String == "pay_up_front")
            #expect(info.value(at: "subscriber.subscriptions.monthly.offer_period") as? String == "P6M")
            #expect(info.value(at: "subscriber.subscriptions.monthly.store") as? String == "rc_billing")
            let purchase = try #require(try await server.deps.store.purchases(appID: app.id, email: "payer@example.com").first)
            #expect(purchase.price == Price(amountMicros: 9_990_000, currency: "USD") && purchase.isSandbox)
        }
    }

    @Test(arguments: TestDatabases.available)
    func redemptionsSendWebhookEventsLikeApplesNotifications(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let hook = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/webhooks", key: app.secret, json: #"{"url": "https://hooks.example.com/redeem"}"#)
            #expect(hook.status == 201, "\(hook.body)")
            let offer = try await OfferCodeAPITests.offer(
                server, app,
                #"{"product_id": "monthly", "reference_name": "Any", "payment_mode": "free_trial", "duration": "P1W", "periods": 2, "eligibility": ["new", "existing", "expired"]}"#
            )
            try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "HELLO", cap: 10)
            try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "AGAIN", cap: 10)
            _ = try await server.grant(app, #"{"app_user_id": "subscriber", "product_id": "monthly"}"#)
            #expect(try await OfferCodeAPITests.redeem(server, app, user: "newcomer", code: "HELLO").status == 200)
            #expect(try await OfferCodeAPITests.redeem(server, app, user: "subscriber", code: "AGAIN").status == 200)
            let rows = try await server.deps.store.database.read {
                try await $0.query(
                    "SELECT body FROM webhook_deliveries WHERE event_type <> 'INITIAL_PURCHASE' OR body LIKE '%offer_code%' ORDER BY created_at")
            }
            let events = try rows.map { row -> [String: Any] in
                let object = try JSONSerialization.jsonObject(with: Data(try row.string("body").utf8)) as? [String: Any]
                return try #require(object?["event"] as? [String: Any])
            }.filter { $0["offer"] != nil }
            #expect(events.count == 2)
            let first = try #require(events.first { $0["app_user_id"] as? String == "newcomer" })
            #expect(first["type"] as? String == "INITIAL_PURCHASE")
            #expect(first["offer_code"] as? String == "HELLO")
            let offerObject = try #require(first["offer"] as? [String: Any])
            #expect(offerObject["notification_type"] as? String == "SUBSCRIBED")
            #expect(offerObject["subtype"] as? String == "INITIAL_BUY")
            #expect(offerObject["reference_name"] as? String == "Any")
            #expect(offerObject["period"] as? String == "P2W")
            let second = try #require(events.first { $0["app_user_id"] as? String == "subscriber" })
            #expect(second["type"] as? String == "OFFER_CODE_REDEEMED")
            #expect((second["offer"] as? [String: Any])?["notification_type"] as? String == "OFFER_REDEEMED")
        }
    }
}

extension OfferCodePageTests {
    /// A checkout.session.completed event for an offer's Stripe session.
    static func offerSession(_ id: String, app: String, code: String, user: String) -> String {
        let start = Int(TestServer.start.timeIntervalSince1970)
        return """
            {"id": "evt_\(id)", "object": "event", "type": "checkout.session.completed", "created": \(start), "livemode": false,
             "api_version": "2024-06-20", "data": {"object": {"id": "cs_test_\(id)", "object": "checkout.session", "mode": "payment",
             "payment_status": "paid", "customer": "cus_1", "subscription": null, "payment_intent": "pi_\(id)", "client_reference_id": null,
             "metadata": {"app_id": "\(app)", "product_id": "monthly", "app_user_id": "\(user)", "redeem_offer_code": "\(code)"},
             "customer_details": {"email": "payer@example.com"}, "customer_email": null, "amount_total": 999, "currency": "usd",
             "created": \(start)}}}
            """
    }

    @Test(arguments: TestDatabases.available) func aPaidOfferInProductionIsPaidWithStripeAndRedeemedByTheWebhook(_ backend: TestBackend) async throws
    {
        try await StripeCheckoutTests.withFakeStripe { base, recorded in
            let stripe = try StripeSettings(secretKey: "sk_test_123", apiBase: base)
            try await TestServer.with(backend, stripeWebhookSecret: StripeWebhookTests.secret, stripe: stripe) { server in
                let app = try await CheckoutTests.shop(server)
                let offer = try await OfferCodeAPITests.offer(
                    server, app,
                    #"{"product_id": "monthly", "reference_name": "Half year", "payment_mode": "pay_up_front", "duration": "P6M", "price": {"amount": "9.99", "currency": "USD"}, "eligibility": ["new"]}"#
                )
                try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "HALFYEAR", cap: 1)
                let page = try await server.send(.get, "/redeem?ctx=offercodes&id=\(app.id)&code=halfyear&app_user_id=payer-1", key: nil)
                let claim = try Self.claimID(page)
                let fields = "ctx=offercodes&id=\(app.id)&code=halfyear&claim_id=\(claim)&email=payer%40example.com&app_user_id=payer-1"
                let redirect = try await server.send(.post, "/redeem", key: nil, json: fields, headers: CheckoutTests.form)
                #expect(redirect.status == 303)
                #expect(redirect.headers[.location] == "https://checkout.stripe.com/c/pay/cs_test_fake123456")
                let request = try #require(recorded.withLockedValue { $0.first })
                #expect(request.form["mode"] == "payment")
                #expect(request.form["line_items[0][price_data][unit_amount]"] == "999")
                #expect(request.form["metadata[redeem_offer_code]"] == "HALFYEAR")
                #expect(request.form["metadata[app_user_id]"] == "payer-1")
                // Nothing is redeemed until Stripe says the payment succeeded.
                #expect(try await server.deps.store.customCodes(appID: app.id, offerID: offer).first?.redemptionCount == 0)
                let paid = try await StripeWebhookTests.post(server, Self.offerSession("offer1", app: app.id, code: "HALFYEAR", user: "payer-1"))
                #expect(paid.status == 200, "\(paid.body)")
                let info = try await server.send(.get, "/v1/subscribers/payer-1", key: app.publicSandbox).object()
                #expect(info.value(at: "subscriber.subscriptions.monthly.offer_code_ref_name") as? String == "Half year")
                #expect(info.value(at: "subscriber.subscriptions.monthly.store") as? String == "stripe")
                #expect(info.value(at: "subscriber.subscriptions.monthly.expires_date") as? String == "2026-12-01T00:00:00Z")
                #expect(try await server.deps.store.customCodes(appID: app.id, offerID: offer).first?.redemptionCount == 1)
                // A second buyer paid after the cap was reached: the payment still buys the product, without the offer.
                let late = try await StripeWebhookTests.post(server, Self.offerSession("offer2", app: app.id, code: "HALFYEAR", user: "payer-2"))
                #expect(late.status == 200)
                let second = try await server.send(.get, "/v1/subscribers/payer-2", key: app.publicSandbox).object()
                #expect(second.value(at: "subscriber.entitlements.pro") != nil)
                #expect(second.value(at: "subscriber.subscriptions.monthly.offer_code_ref_name") == nil)
                #expect(try await server.deps.store.customCodes(appID: app.id, offerID: offer).first?.redemptionCount == 1)
                #expect(try await server.deps.store.offerRedemptions(appID: app.id, offerID: offer).count == 1)
            }
        }
    }

    /// Pay as you go is charged for all its periods at once (Stripe takes one payment) and nothing renews: the page
    /// says exactly that.
    @Test(arguments: TestDatabases.available) func payAsYouGoSaysWhatIsChargedNow(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            let offer = try await OfferCodeAPITests.offer(
                server, app,
                #"{"product_id": "monthly", "reference_name": "Three", "payment_mode": "pay_as_you_go", "duration": "P1M", "periods": 3, "price": {"amount": "0.99", "currency": "USD"}, "eligibility": ["new"]}"#
            )
            try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "THREE", cap: 5)
            let page = try await server.send(.get, "/sandbox/redeem?ctx=offercodes&id=\(app.id)&code=THREE&app_user_id=buyer-9", key: nil)
            #expect(page.body.contains("$0.99 a month for 3 months: $2.97, paid now. It does not renew."), "\(page.body)")
            let german = try await server.send(
                .get, "/sandbox/redeem?ctx=offercodes&id=\(app.id)&code=THREE&app_user_id=buyer-9", key: nil, headers: [.acceptLanguage: "de-DE"])
            #expect(german.body.contains("0,99\u{00A0}$ pro Monat für 3 Monate: 2,97\u{00A0}$"), "in the browser's locale and language")
        }
    }

    /// An offer code typed on the checkout page (or put on a purchase link as `?code=`) leads to the code's offer page,
    /// which shows what the code gives and its price before any payment.
    @Test(arguments: TestDatabases.available) func aCodeTypedAtCheckoutShowsItsOfferAndPriceFirst(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            let offer = try await OfferCodeAPITests.offer(
                server, app,
                #"{"product_id": "monthly", "reference_name": "Half year", "payment_mode": "pay_up_front", "duration": "P6M", "price": {"amount": "9.99", "currency": "USD"}, "eligibility": ["new"]}"#
            )
            try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "HALFYEAR", cap: 5)
            let checkout = try await server.send(.get, "/sandbox/p/\(app.id)/monthly?app_user_id=buyer-3", key: nil)
            #expect(checkout.body.contains("Have an offer code?") && checkout.body.contains(#"action="/sandbox/p/\#(app.id)/monthly""#))
            let typed = try await server.send(.get, "/sandbox/p/\(app.id)/monthly?app_user_id=buyer-3&code=half-year", key: nil)
            #expect(typed.status == 303)
            let location = try #require(typed.headers[.location])
            #expect(location == "/sandbox/redeem?ctx=offercodes&id=\(app.id)&code=half-year&product=monthly&app_user_id=buyer-3")
            let page = try await server.send(.get, location, key: nil)
            #expect(page.body.contains("$9.99 for 6 months, paid now."), "the price before paying")
            let production = try await server.send(.get, "/p/\(app.id)/monthly?code=HALFYEAR", key: nil)
            #expect(
                production.headers[.location] == "/redeem?ctx=offercodes&id=\(app.id)&code=HALFYEAR&product=monthly", "before Stripe, even without it"
            )
            #expect(try await server.deps.store.customCodes(appID: app.id, offerID: offer).first?.redemptionCount == 0, "nothing used yet")
            // A link's own settings are checked first, wherever it leads.
            #expect(try await server.send(.get, "/sandbox/p/\(app.id)/monthly?code=HALFYEAR&after_purchase=bogus", key: nil).status == 422)
            #expect(try await server.send(.get, "/p/\(app.id)/monthly?code=HALFYEAR&allow_promotion_codes=maybe", key: nil).status == 422)
        }
    }
}
