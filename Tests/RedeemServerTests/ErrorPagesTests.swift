import Foundation
import RedeemTestSupport
import Testing

/// A buyer who opens a broken purchase link gets a page, not a JSON body; the API keeps its JSON errors.
@Suite struct ErrorPagesTests {
    @Test(arguments: TestDatabases.available) func buyerPagesAnswerErrorsAsPages(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            for path in ["/p/app_nope/monthly", "/sandbox/p/\(app.id)/no_such_product", "/redeem?ctx=offercodes&id=app_nope&code=X"] {
                let page = try await server.send(.get, path, key: nil)
                #expect(page.status == 404, "\(path)")
                #expect(page.headers[.contentType] == "text/html; charset=utf-8", "\(path)")
                #expect(page.body.contains("<h1>This link doesn’t lead anywhere</h1>"), "\(path)")
                #expect(!page.body.contains("\"code\""), "\(path)")
            }
            // Paid checkout is off on this server: a page in the app's name that says so, with the API's status.
            let production = try await server.send(.get, "/p/\(app.id)/monthly", key: nil)
            #expect(production.status == 503 && production.body.contains("<h1>monthly isn’t on sale here yet</h1>"), "\(production.body)")
            // A refused address on the sandbox checkout, and the newer buyer pages, answer pages too.
            let shop = try await CheckoutTests.shop(server)
            let form = try await server.send(.get, "/sandbox/p/\(shop.id)/lifetime", key: nil)
            let refused = try await server.send(
                .post, "/sandbox/p/\(shop.id)/lifetime", key: nil, json: "email=not-an-address&checkout_id=\(try CheckoutTests.checkoutID(form))",
                headers: CheckoutTests.form)
            #expect(refused.status == 422 && refused.headers[.contentType] == "text/html; charset=utf-8", "\(refused.body)")
            // A page of a known app names the app and its support address, so the buyer has someone to write to.
            let branded = try await CheckoutTests.shop(server, settings: #", "support_email": "help@shop.example""#)
            let missing = try await server.send(.get, "/sandbox/p/\(branded.id)/no_such_product", key: nil)
            #expect(missing.status == 404 && missing.body.contains("mailto:help@shop.example") && missing.body.contains("· Shop</title>"))
            let portal = try await server.send(
                .post, "/account/\(branded.id)/sign-in", key: nil, json: "email=a%40b.example", headers: CheckoutTests.form)
            #expect(portal.status == 403 && portal.body.contains("mailto:help@shop.example"), "a refused form, with the app's support")
            for path in ["/account/app_nope", "/checkout/done/not-a-token"] {
                let page = try await server.send(.get, path, key: nil)
                #expect(page.status == 404 && page.headers[.contentType] == "text/html; charset=utf-8", "\(path)")
            }
            let api = try await server.send(.get, "/v1/subscribers/null", key: app.publicSandbox)
            #expect(api.status == 400 && api.code == 7256)
        }
    }
}
