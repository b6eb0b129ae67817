import Foundation
import HTTPTypes
import RedeemCore
import RedeemServer
import RedeemTestSupport
import Testing

@Suite struct LinkPageTests {
    @Test(arguments: TestDatabases.available)
    func pageShowsTheLinkAndNeverConsumesIt(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp(
                #"{"name": "Lumen", "app_store_url": "https://apps.apple.com/app/id1", "play_store_url": "https://play.google.com/store/apps/details?id=com.lumen", "android_package_name": "com.lumen"}"#
            )
            _ = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/products", key: app.secret,
                json: #"{"id": "lifetime", "type": "non_consumable", "entitlements": ["pro"]}"#)
            let token = try RedemptionAPITests.token(from: try await server.grant(app, #"{"app_user_id": "bob", "product_id": "lifetime"}"#))
            for _ in 0..<3 {  // mail scanners, previews, the buyer: nobody's GET uses it up
                let page = try await server.send(.get, "/r/\(token)", key: nil)
                #expect(page.status == 200)
                #expect(page.headers[.contentType] == "text/html; charset=utf-8")
                #expect(page.headers[.cacheControl] == "no-store")
                #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
                #expect(page.body.contains("\(app.scheme)://redeem_web_purchase?redemption_token=\(token)"))
                #expect(page.body.contains("intent://redeem_web_purchase?redemption_token=\(token)#Intent;scheme=\(app.scheme);package=com.lumen;"))
                #expect(page.body.contains("<svg"))
                #expect(page.body.contains("https://apps.apple.com/app/id1"))
                #expect(page.body.contains("Lumen"))
            }
            #expect(try await RedemptionAPITests.redeem(server, app, user: "bob", token: token).status == 200)
            let used = try await server.send(.get, "/r/\(token)", key: nil)
            #expect(used.status == 410)
            #expect(!used.body.contains("redeem_web_purchase?redemption_token="))
            // E-mail is off on this server: no form that would claim to send a link.
            #expect(!used.body.contains("/r/\(token)/resend"))
        }
    }

    /// The page says how long the link has left when it is opened, not how long links last; and without e-mail it
    /// offers the support address instead of a form that cannot send anything.
    @Test(arguments: TestDatabases.available) func timeLeftAndNoResendWithoutEmail(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createApp(#"{"name": "Lumen", "support_email": "help@lumen.example"}"#)
            _ = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: #"{"id": "lifetime", "type": "non_consumable"}"#)
            let token = try RedemptionAPITests.token(from: try await server.grant(app, #"{"app_user_id": "bob", "product_id": "lifetime"}"#))
            #expect(try await server.send(.get, "/r/\(token)", key: nil).body.contains("expires in 60 minutes"))
            clock.advance(by: 30 * 60 + 20)
            #expect(try await server.send(.get, "/r/\(token)", key: nil).body.contains("expires in 29 minutes"))
            clock.advance(by: 28 * 60 + 10)
            #expect(try await server.send(.get, "/r/\(token)", key: nil).body.contains("expires in 1 minute."))
            clock.advance(by: 90)
            let expired = try await server.send(.get, "/r/\(token)", key: nil)
            #expect(expired.status == 410)
            #expect(!expired.body.contains("Send me a new link"))
            #expect(expired.body.contains("mailto:help@lumen.example"))
            let posted = try await server.send(
                .post, "/r/\(token)/resend", key: nil, json: "email=bob%40example.com",
                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(posted.status == 303 && posted.headers[.location] == "/r/\(token)")

            // Long lifetimes read in hours, then days, rounded down.
            let week = try await server.send(
                .patch, "/admin/v1/apps/\(app.id)", key: app.secret, json: #"{"redemption_link_lifetime_seconds": 604800}"#)
            #expect(week.status == 200)
            let weekToken = try RedemptionAPITests.token(from: try await server.grant(app, #"{"app_user_id": "carol", "product_id": "lifetime"}"#))
            #expect(try await server.send(.get, "/r/\(weekToken)", key: nil).body.contains("expires in 7 days"))
            clock.advance(by: 6 * 86_400 + 3600)
            #expect(try await server.send(.get, "/r/\(weekToken)", key: nil).body.contains("expires in 23 hours"))
        }
    }

    @Test(arguments: TestDatabases.available) func expiredAndInvalidStates(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createAppWithCatalog()
            let token = try RedemptionAPITests.token(from: try await server.grant(app, #"{"app_user_id": "bob", "product_id": "lifetime"}"#))
            clock.advance(by: 3600)
            let expired = try await server.send(.get, "/r/\(token)", key: nil)
            #expect(expired.status == 410)
            #expect(expired.body.lowercased().contains("expired"))
            let unknown = try await server.send(.get, "/r/\(RedemptionLink.newToken())", key: nil)
            #expect(unknown.status == 404)
            let malformed = try await server.send(.get, "/r/not-a-token%3Cscript%3E", key: nil)
            #expect(malformed.status == 404)
            #expect(!malformed.body.contains("<script>"))
        }
    }

    @Test(arguments: TestDatabases.available) func resendFormAnswersAlikeAndSendsOnlyToTheBuyer(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, clock: clock, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                let app = try await server.createAppWithCatalog()
                let token = try RedemptionAPITests.token(
                    from: try await server.grant(app, #"{"app_user_id": "bob", "product_id": "lifetime", "email": "bob@example.com"}"#))
                clock.advance(by: 3600)
                let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
                let wrong = try await server.send(.post, "/r/\(token)/resend", key: nil, json: "email=eve%40example.com", headers: form)
                let right = try await server.send(.post, "/r/\(token)/resend", key: nil, json: "email=Bob%40Example.com", headers: form)
                for reply in [wrong, right] {
                    #expect(reply.status == 303)
                    #expect(reply.headers[.location] == "/r/\(token)?sent=1")
                }
                #expect(await server.deps.mailer?.drain() == 1)
                #expect(try smtp.received().map(\.rcptTos) == [["bob@example.com"]])
                let flashed = try await server.send(.get, "/r/\(token)?sent=1", key: nil)
                #expect(flashed.body.contains("If that address matches this purchase"))
            }
        }
    }
}
