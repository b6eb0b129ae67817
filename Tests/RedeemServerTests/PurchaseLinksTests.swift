import Foundation
import HTTPTypes
import RedeemCore
import RedeemTestSupport
import Testing

@testable import RedeemServer

/// A product's and an offer code's links: the one builder, the admin route, `redeem links purchase`'s service call, and
/// the console's products and offers pages.
@Suite struct PurchaseLinksTests {
    static let base = URL(string: "https://pay.example.com/")!

    @Test func productionAndSandboxShareOnePathShape() {
        let pair = PurchaseLinks.pair(publicURL: Self.base, appID: "app_1", productID: "pro_monthly")
        #expect(pair.production == "https://pay.example.com/p/app_1/pro_monthly")
        #expect(pair.sandbox == "https://pay.example.com/sandbox/p/app_1/pro_monthly")
        // The old entry point (offerings' web_checkout_url) gives the same.
        #expect(PurchaseLinks.url(publicURL: Self.base, appID: "app_1", productID: "pro_monthly", sandbox: true) == pair.sandbox)
    }

    @Test func theAppUserIDIsOnePercentEncodedSegment() {
        let options = PurchaseLinks.Options(appUserID: " user/1?x=y&z é+ ")
        let url = PurchaseLinks.url(publicURL: Self.base, appID: "app_1", productID: "pro", sandbox: false, options: options)
        #expect(url == "https://pay.example.com/p/app_1/pro/user%2F1%3Fx%3Dy%26z%20%C3%A9%2B")
        #expect(URL(string: url) != nil)
    }

    @Test func utmValuesAreEncodedInAFixedOrderAndBlanksAreLeftOut() {
        let options = PurchaseLinks.Options(
            appUserID: "  ", utm: ["utm_campaign": "spring sale & more", "utm_source": "news+letter", "utm_medium": "", "utm_term": "x"])
        #expect(options.appUserID == nil)
        let pair = PurchaseLinks.pair(publicURL: Self.base, appID: "app_1", productID: "pro", options: options)
        #expect(pair.production == "https://pay.example.com/p/app_1/pro?utm_source=news%2Bletter&utm_campaign=spring%20sale%20%26%20more")
        #expect(pair.sandbox == "https://pay.example.com/sandbox/p/app_1/pro?utm_source=news%2Bletter&utm_campaign=spring%20sale%20%26%20more")
        let fromForm = PurchaseLinks.Options(fields: ["app_user_id": "u1", "utm_medium": "email", "email": "ignored@example.com"])
        #expect(
            PurchaseLinks.url(publicURL: Self.base, appID: "a", productID: "p", sandbox: false, options: fromForm)
                == "https://pay.example.com/p/a/p/u1?utm_medium=email")
    }

    @Test func codeLinksOpenTheOffersPage() {
        let pair = PurchaseLinks.codePair(publicURL: Self.base, appID: "app_1", code: "SPRING&25")
        #expect(pair.production == "https://pay.example.com/redeem?ctx=offercodes&id=app_1&code=SPRING%2625")
        #expect(pair.sandbox == "https://pay.example.com/sandbox/redeem?ctx=offercodes&id=app_1&code=SPRING%2625")
    }

    @Test(arguments: TestDatabases.available)
    func theAdminRouteAnswersBothLinksAndRefusesUnknownProducts(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let path = "/admin/v1/apps/\(app.id)/products/monthly/links"
            let plain = try await server.send(.get, path, key: app.secret).object()
            #expect(plain["production_url"] as? String == "https://pay.example.com/p/\(app.id)/monthly")
            #expect(plain["sandbox_url"] as? String == "https://pay.example.com/sandbox/p/\(app.id)/monthly")
            let query = "?app_user_id=user%207%2Bx&utm_source=news%2Bletter&utm_medium=email&utm_campaign=spring%20sale"
            let full = try await server.send(.get, path + query, key: server.adminKey).object()
            #expect(
                full["production_url"] as? String
                    == "https://pay.example.com/p/\(app.id)/monthly/user%207%2Bx?utm_source=news%2Bletter&utm_medium=email&utm_campaign=spring%20sale"
            )
            #expect((full["sandbox_url"] as? String)?.hasPrefix("https://pay.example.com/sandbox/p/\(app.id)/monthly/user%207%2Bx?") == true)
            // An app user ID the checkout would refuse is refused here, naming the field.
            let refused = try await server.send(.get, path + "?app_user_id=a%2Fb", key: app.secret)
            #expect(refused.status == 422)
            #expect(try refused.string("field") == "app_user_id")
            // A UTM value past the contract's 255 characters is refused by name, not put in a link.
            let long = try await server.send(.get, path + "?utm_source=" + String(repeating: "a", count: 256), key: app.secret)
            #expect(long.status == 422)
            #expect(try long.string("field") == "utm_source")
            #expect(try await server.send(.get, "/admin/v1/apps/\(app.id)/products/nope/links", key: app.secret).status == 404)
            #expect(try await server.send(.get, "/admin/v1/apps/app_nope/products/monthly/links", key: server.adminKey).status == 404)
            #expect(try await server.send(.get, path, key: app.publicSandbox).status == 403)
            #expect(try await server.send(.get, path, key: nil).status == 401)
            let other = try await server.createApp()
            #expect(try await server.send(.get, path, key: other.secret).status == 403)
        }
    }

    @Test(arguments: TestDatabases.available)
    func theProductsPageShowsEachProductsLinksWithTheFormsValues(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let priced = #"{"id": "yearly", "type": "subscription", "period": "P1Y", "price": {"amount": "29.99", "currency": "USD"}}"#
            #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: priced).status == 201)
            _ = try await ConsoleTests.owner(server)
            let cookie = "redeem_console=" + (try await ConsoleTests.signIn(server))
            let page = try await server.send(.get, "/console/apps/\(app.id)/products", key: nil, headers: [.cookie: cookie])
            #expect(page.status == 200)
            // The unpriced products' production links say so (once each); the priced one's, that Stripe is missing.
            #expect(page.body.components(separatedBy: "The product has no price yet: this link does not sell it.").count == 3)
            for link in ["https://pay.example.com/p/\(app.id)/monthly", "https://pay.example.com/sandbox/p/\(app.id)/lifetime"] {
                #expect(page.body.contains(#"data-copy="\#(link)""#), "\(link) is copyable")
                #expect(page.body.contains(">\(link)</code>"))
            }
            #expect(page.body.contains("QR code of the sandbox link for monthly"))
            #expect(page.body.components(separatedBy: "<svg").count - 1 >= 4, "a QR code per link")
            // No Stripe on this server: the production links say they do not sell.
            #expect(page.body.components(separatedBy: "Stripe is not configured on this server (REDEEM_STRIPE_SECRET_KEY)").count == 2)
            #expect(!page.body.contains("<details class=\"links\" open"), "closed until the form is used")

            let query = "?app_user_id=%3Cb%3Euser&utm_source=news%22letter&utm_medium=&utm_campaign=spring+sale%2B"
            let formed = try await server.send(.get, "/console/apps/\(app.id)/products" + query, key: nil, headers: [.cookie: cookie])
            let expected =
                "https://pay.example.com/sandbox/p/\(app.id)/monthly/%3Cb%3Euser?utm_source=news%22letter&amp;utm_campaign=spring%20sale%2B"
            #expect(formed.body.contains(#"data-copy="\#(expected)""#), "\(formed.body)")
            #expect(formed.body.contains(#"name="app_user_id" value="&lt;b&gt;user""#), "the form keeps what was typed, escaped")
            #expect(formed.body.contains(#"name="utm_source" value="news&quot;letter""#))
            #expect(formed.body.contains(#"name="utm_campaign" value="spring sale+""#), "a GET form's + is a space, %2B a plus")
            #expect(!formed.body.contains("<b>user"))
            #expect(formed.body.contains("<details class=\"links\" open"))
            let refused = try await server.send(
                .get, "/console/apps/\(app.id)/products?app_user_id=a%2Fb", key: nil, headers: [.cookie: cookie])
            #expect(refused.body.contains("App user ID: must not contain"), "a refused app user ID is named")
            #expect(refused.body.contains(#"data-copy="https://pay.example.com/p/\#(app.id)/monthly""#), "and left out of the links")
        }
    }

    @Test(arguments: TestDatabases.available)
    func withStripeTheProductionLinksCarryNoWarningAndCodesGetLinks(_ backend: TestBackend) async throws {
        let stripe = try StripeSettings(secretKey: "sk_test_123", apiBase: URL(string: "http://127.0.0.1:9")!)
        try await TestServer.with(backend, stripe: stripe) { server in
            let app = try await server.createAppWithCatalog()
            let offer = try await OfferCodeAPITests.offer(server, app, OfferCodeAPITests.trial)
            try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "SPRING", cap: 3)
            try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "PAUSED", cap: 3)
            let paused = try await server.send(.get, "/admin/v1/apps/\(app.id)/custom_codes", key: app.secret).object()
            let pausedID = try #require((paused["custom_codes"] as? [[String: Any]])?.first { $0["code"] as? String == "PAUSED" }?["id"] as? String)
            #expect(
                try await server.send(
                    .patch, "/admin/v1/apps/\(app.id)/custom_codes/\(pausedID)", key: app.secret, json: #"{"active": false}"#
                ).status == 200)
            _ = try await ConsoleTests.owner(server)
            let cookie = "redeem_console=" + (try await ConsoleTests.signIn(server))
            let products = try await server.send(.get, "/console/apps/\(app.id)/products", key: nil, headers: [.cookie: cookie])
            #expect(products.body.contains(#"data-copy="https://pay.example.com/p/\#(app.id)/monthly""#))
            #expect(!products.body.contains("Stripe is not configured"))
            let offers = try await server.send(.get, "/console/apps/\(app.id)/offers", key: nil, headers: [.cookie: cookie])
            #expect(offers.body.contains(#"data-copy="https://pay.example.com/redeem?ctx=offercodes&amp;id=\#(app.id)&amp;code=SPRING""#))
            #expect(offers.body.contains(#"data-copy="https://pay.example.com/sandbox/redeem?ctx=offercodes&amp;id=\#(app.id)&amp;code=SPRING""#))
            #expect(!offers.body.contains("code=PAUSED"), "a switched-off code has no link to share")
        }
    }
}
