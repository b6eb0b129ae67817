import Foundation
import HTTPTypes
import RedeemCore
import RedeemServer
import RedeemTestSupport
import Testing

@Suite struct CheckoutTests {
    static let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    /// An app selling a monthly subscription (4.99 USD) and a lifetime product (19.99 USD).
    static func shop(_ server: TestServer, settings: String = "") async throws -> CreatedAppKeys {
        let app = try await server.createApp(#"{"name": "Shop"\#(settings)}"#)
        for product in [
            #"{"id": "monthly", "type": "subscription", "period": "P1M", "display_name": "Pro Monthly", "entitlements": ["pro"], "price": {"amount": "4.99", "currency": "USD"}}"#,
            #"{"id": "lifetime", "type": "non_consumable", "entitlements": ["pro"], "price": {"amount": 19.99, "currency": "USD"}}"#,
        ] {
            #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: product).status == 201)
        }
        return app
    }

    /// The hidden `checkout_id` the page put in its form.
    static func checkoutID(_ page: TestServer.Reply) throws -> String {
        let match = try #require(page.body.firstMatch(of: /name="checkout_id" value="([A-Za-z0-9_-]+)"/))
        return String(match.output.1)
    }

    @Test(arguments: TestDatabases.available)
    func sandboxCheckoutRecordsAndShowsTheRedemptionStep(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await Self.shop(server)
            let page = try await server.send(
                .get, "/sandbox/p/\(app.id)/monthly?email=buyer%40example.com&campaign=spring&utm_source=newsletter", key: nil)
            #expect(page.status == 200)
            #expect(page.body.contains("Pro Monthly"))
            #expect(page.body.contains("$4.99 / month"), "the price with its symbol, the period in words")
            #expect(page.body.contains(#"value="buyer@example.com" readonly"#))
            let id = try Self.checkoutID(page)
            #expect(page.body.contains(#"name="param.utm_source" value="newsletter""#), "attribution rides along the form")
            let body = "email=buyer%40example.com&checkout_id=\(id)&param.campaign=spring&param.utm_source=newsletter"
            let posted = try await server.send(.post, "/sandbox/p/\(app.id)/monthly", key: nil, json: body, headers: Self.form)
            #expect(posted.status == 303 && posted.headers[.location]?.hasPrefix("/checkout/done/") == true, "post, redirect, get")
            let done = try await server.landing(posted)
            #expect(done.status == 200)
            #expect(done.headers[.cacheControl] == "no-store")
            #expect(done.body.contains("Thank you for your purchase"))
            #expect(!done.body.contains("e-mailed you a link"))  // no SMTP in this test, so nothing was sent
            let link = try #require(done.body.firstMatch(of: /https:\/\/pay\.example\.com\/r\/([A-Za-z0-9_-]{43})/))
            #expect(done.body.contains("\(app.scheme)://redeem_web_purchase?redemption_token=\(link.output.1)"))
            // A second submit of the same form records nothing new.
            _ = try await server.send(.post, "/sandbox/p/\(app.id)/monthly", key: nil, json: body, headers: Self.form)
            let purchases = try await server.deps.store.purchases(appID: app.id, email: "buyer@example.com")
            #expect(purchases.count == 1)
            let purchase = try #require(purchases.first)
            #expect(purchase.isSandbox && purchase.store == .rcBilling)
            #expect(purchase.price == Price(amountMicros: 4_990_000, currency: "USD"))
            #expect(purchase.customParams == ["campaign": "spring", "utm_source": "newsletter"])
            // Sandbox months last five minutes.
            #expect(purchase.expiresDate == purchase.purchaseDate.addingTimeInterval(300))
            // Reopening the page shows the same link and consumes nothing; the link redeems in the app.
            let again = try await server.send(.get, try #require(posted.headers[.location]), key: nil)
            #expect(again.status == 200 && again.body.contains(String(link.output.1)))
            #expect(again.body.contains("Keep this link for later"), "the HTTPS link, for a phone without the app")
            #expect(try await RedemptionAPITests.redeem(server, app, user: "alice", token: String(link.output.1)).status == 200)
            let used = try await server.send(.get, try #require(posted.headers[.location]), key: nil)
            #expect(used.body.contains("Already added") && used.body.contains("/account/\(app.id)"), "then it says so, and where to get another")
            let bogus = try await server.send(.get, "/checkout/done/nope", key: nil)
            #expect(bogus.status == 404 && bogus.headers[.contentType]?.hasPrefix("text/html") == true)
        }
    }

    /// Numbers, currencies, dates and words follow the browser's language; one Redeem lacks words for keeps its numbers.
    @Test(arguments: TestDatabases.available) func pricesAndDatesFollowTheBrowsersLanguage(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await Self.shop(server)
            for (language, price, date) in [
                ("en-US,en;q=0.9", "$4.99 / month", "June 1, 2026"), ("de-DE,de;q=0.9,en;q=0.5", "4,99\u{00A0}$ / Monat", "1. Juni 2026"),
                ("sv-SE", "4,99\u{00A0}US$ / month", "1 juni 2026"),
                ("", "$4.99 / month", "June 1, 2026"), ("xx-YY", "$4.99 / month", "June 1, 2026"),
            ] {
                let headers: HTTPFields = language.isEmpty ? [:] : [.acceptLanguage: language]
                let page = try await server.send(.get, "/sandbox/p/\(app.id)/monthly", key: nil, headers: headers)
                #expect(page.body.contains(price), "\(language): \(price)")
                var form = Self.form
                form[.acceptLanguage] = language.isEmpty ? nil : language
                let body = "email=buyer%40example.com&checkout_id=\(try Self.checkoutID(page))"
                let done = try await server.landing(
                    try await server.send(.post, "/sandbox/p/\(app.id)/monthly", key: nil, json: body, headers: form), headers: headers)
                #expect(done.body.contains(date) && done.body.contains(price), "\(language): \(date)")
            }
        }
    }

    @Test(arguments: TestDatabases.available) func identifiedBuyersCannotBuyWhatTheyHave(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await Self.shop(server)
            // Two tabs on the page; the first pays.
            var forms: [String] = []
            for _ in 0..<2 {
                let page = try await server.send(.get, "/sandbox/p/\(app.id)/lifetime/alice", key: nil)
                forms.append("email=a%40example.com&checkout_id=\(try Self.checkoutID(page))")
            }
            for (form, expected) in zip(forms, [303, 409]) {
                let reply = try await server.send(.post, "/sandbox/p/\(app.id)/lifetime/alice", key: nil, json: form, headers: Self.form)
                #expect(reply.status == expected, "the second tab's payment is refused: \(reply.body)")
            }
            // Now the page says so before the form.
            let again = try await server.send(.get, "/sandbox/p/\(app.id)/lifetime/alice", key: nil)
            #expect(again.status == 409 && again.body.contains("You already own lifetime.") && !again.body.contains("checkout_id"))
            #expect(try await server.send(.get, "/sandbox/p/\(app.id)/lifetime/bob", key: nil).status == 200, "another buyer may")
            let info = try await server.send(.get, "/v1/subscribers/alice", key: app.publicSandbox).object()
            #expect(info.value(at: "subscriber.entitlements.pro.product_identifier") as? String == "lifetime")
        }
    }

    @Test(arguments: TestDatabases.available) func linksFollowThePolicyAndTheEnvironment(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await Self.shop(server, settings: #", "redemption_link_policy": "disabled""#)
            #expect(try await server.send(.get, "/sandbox/p/\(app.id)/monthly", key: nil).status == 403)
            #expect(try await server.send(.get, "/sandbox/p/\(app.id)/monthly?app_user_id=bob", key: nil).status == 200)
            #expect(try await server.send(.get, "/sandbox/p/\(app.id)/nothing", key: nil).status == 404)
            // Without Stripe the buyer reads, in the app's name, that it is not on sale; never the operator's advice.
            let production = try await server.send(.get, "/p/\(app.id)/monthly/bob", key: nil)
            #expect(production.status == 503)
            #expect(production.body.contains("isn’t on sale here yet") && production.body.contains("doesn’t take payments on the web yet"))
            #expect(!production.body.contains("configured") && !production.body.contains("sandbox"))
        }
    }

    /// A refused address is the same form again, with what was typed and the checkout kept; corrected, it completes.
    @Test(arguments: TestDatabases.available) func aMistypedAddressComesBackOnTheCheckout(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await Self.shop(server)
            let page = try await server.send(.get, "/sandbox/p/\(app.id)/lifetime?utm_source=mail", key: nil)
            let checkoutID = try Self.checkoutID(page)
            let typo = try await server.send(
                .post, "/sandbox/p/\(app.id)/lifetime", key: nil, json: "email=jane%40example&checkout_id=\(checkoutID)&param.utm_source=mail",
                headers: Self.form)
            #expect(typo.status == 422)
            #expect(typo.body.contains("Enter the e-mail address for your receipt and your link"))
            #expect(typo.body.contains(#"value="jane@example""#))
            #expect(try Self.checkoutID(typo) == checkoutID)
            #expect(typo.body.contains(#"name="param.utm_source" value="mail""#))
            let corrected = try await server.send(
                .post, "/sandbox/p/\(app.id)/lifetime", key: nil, json: "email=jane%40example.com&checkout_id=\(checkoutID)&param.utm_source=mail",
                headers: Self.form)
            #expect(corrected.status == 303)
        }
    }

    @Test(arguments: TestDatabases.available) func redirectsCarryEncodedValues(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let rc = try await Self.shop(
                server, settings: #", "after_purchase": "redirect", "after_purchase_url": "https://shop.example.com/done?from=web""#)
            let page = try await server.send(.get, "/sandbox/p/\(rc.id)/monthly", key: nil)
            let reply = try await server.send(
                .post, "/sandbox/p/\(rc.id)/monthly", key: nil,
                json: "email=a%2Bb%40example.com&checkout_id=\(try Self.checkoutID(page))", headers: Self.form)
            #expect(reply.status == 303)
            let location = try #require(reply.headers[.location].flatMap(URLComponents.init(string:)))
            #expect(location.host == "shop.example.com")
            let items = Dictionary(uniqueKeysWithValues: (location.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(items["from"] == "web")
            #expect(items["redeem_url"]?.hasPrefix("\(rc.scheme)://redeem_web_purchase?redemption_token=") == true)
            #expect(items["app_user_id"]?.hasPrefix("$RCAnonymousID:") == true)

            let sw = try await Self.shop(
                server, settings: #", "after_purchase": "redirect_with_details", "after_purchase_url": "http://localhost:3000/thanks""#)
            let swPage = try await server.send(.get, "/sandbox/p/\(sw.id)/lifetime/carol?utm_source=a%26b", key: nil)
            let swReply = try await server.send(
                .post, "/sandbox/p/\(sw.id)/lifetime/carol", key: nil,
                json: "email=c%2Bx%40example.com&checkout_id=\(try Self.checkoutID(swPage))&param.utm_source=a%26b", headers: Self.form)
            let swLocation = try #require(swReply.headers[.location])
            #expect(swLocation.hasPrefix("http://localhost:3000/thanks?"))
            #expect(swLocation.contains("email=c%2Bx%40example.com"))
            #expect(swLocation.contains("utm_source=a%26b"))
            #expect(swLocation.contains("app_user_id=carol"))
            #expect(swLocation.contains("checkout_session_id=txn_"))
        }
    }

    @Test(arguments: TestDatabases.available) func redirectTargetsMustBeHTTPS(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let bad = try await server.send(
                .post, "/admin/v1/apps", key: server.adminKey,
                json: #"{"name": "X", "after_purchase": "redirect", "after_purchase_url": "http://evil.example.com"}"#)
            #expect(bad.status == 422)
            #expect(try bad.object()["field"] as? String == "after_purchase_url")
            let missing = try await server.send(.post, "/admin/v1/apps", key: server.adminKey, json: #"{"name": "X", "after_purchase": "redirect"}"#)
            #expect(missing.status == 422)
        }
    }
}

@Suite struct CheckoutOverrideTests {
    @Test(arguments: TestDatabases.available) func aLinkCanOverrideTheAfterPurchaseStep(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            let query = "after_purchase=redirect&after_purchase_url=https%3A%2F%2Fcampaign.example.com%2Fdone"
            let page = try await server.send(.get, "/sandbox/p/\(app.id)/monthly?\(query)", key: nil)
            #expect(page.status == 200)
            let reply = try await server.send(
                .post, "/sandbox/p/\(app.id)/monthly", key: nil,
                json: "email=o%40example.com&checkout_id=\(try CheckoutTests.checkoutID(page))&\(query)", headers: CheckoutTests.form)
            #expect(reply.status == 303)
            #expect(reply.headers[.location]?.hasPrefix("https://campaign.example.com/done?redeem_url=") == true)
            let bad = try await server.send(
                .get, "/sandbox/p/\(app.id)/monthly?after_purchase=redirect&after_purchase_url=http%3A%2F%2Fevil.example.com", key: nil)
            #expect(bad.status == 422)
        }
    }
}
