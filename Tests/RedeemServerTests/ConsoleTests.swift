import Foundation
import HTTPTypes
import HummingbirdTesting
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// The console's sign-in, sessions, forms and support views, through the router.
@Suite struct ConsoleTests {
    static let password = "correct horse battery"

    /// An owner operator (bcrypt cost 4: the cost is bcrypt's, not what the test checks).
    static func owner(_ server: TestServer, email: String = "owner@example.com", role: OperatorRole = .owner) async throws -> Operator {
        try await OperatorService(store: server.deps.store, clock: server.deps.clock, cost: 4)
            .create(email: email, role: role, password: password, actor: "test")
    }

    /// The sign-in form's token and cookie.
    static func form(_ server: TestServer) async throws -> (token: String, cookie: String) {
        let page = try await server.send(.get, "/console/sign-in", key: nil)
        #expect(page.status == 200)
        #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
        let cookie = try #require(cookieValue(page, "redeem_console_form"))
        let token = try #require(page.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1)
        return (String(token), cookie)
    }

    static func cookieValue(_ reply: TestServer.Reply, _ name: String) -> String? {
        reply.headers[values: .setCookie].first { $0.hasPrefix(name + "=") }.map {
            String($0.dropFirst(name.count + 1).prefix { $0 != ";" })
        }
    }

    static func formBody(_ fields: [String: String]) -> String {
        fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
    }

    static func post(_ server: TestServer, _ path: String, _ fields: [String: String], cookie: String) async throws -> TestServer.Reply {
        try await server.send(
            .post, path, key: nil, raw: formBody(fields),
            headers: [.contentType: "application/x-www-form-urlencoded", .cookie: cookie])
    }

    /// One form sent `times` times at once, as a double click sends it; the answers in any order.
    static func postAtOnce(
        _ server: TestServer, _ path: String, _ fields: [String: String], cookie: String, times: Int = 4
    ) async throws -> [TestServer.Reply] {
        try await TestServer.atOnce(times) { try await post(server, path, fields, cookie: cookie) }
    }

    /// The own ID a page rendered in a form's hidden `field` (`FormID`).
    static func formID(_ page: TestServer.Reply, field: String = "form_id") throws -> String {
        let pattern = try Regex("name=\"\(field)\" value=\"([A-Za-z0-9_-]{16,64})\"")
        return String(try #require(try pattern.firstMatch(in: page.body)?.output[1].substring))
    }

    /// An owner made and signed in: the `Cookie` header value of the session.
    static func signedInOwner(_ server: TestServer) async throws -> String {
        _ = try await owner(server)
        return "redeem_console=\(try await signIn(server))"
    }

    /// Signs in; returns the session cookie.
    static func signIn(_ server: TestServer, email: String = "owner@example.com", password: String = password) async throws -> String {
        let form = try await form(server)
        let reply = try await post(
            server, "/console/sign-in", ["email": email, "password": password, "csrf": form.token], cookie: "redeem_console_form=\(form.cookie)")
        #expect(reply.status == 303, "\(reply.body)")
        return try #require(cookieValue(reply, "redeem_console"))
    }

    /// A sign-in or reset page whose form cookie is gone (a restarted browser, one that kept none) gets its form back
    /// with what was typed (never the password) and a fresh token, not an error page; nothing is done by that request.
    @Test(arguments: TestDatabases.available)
    func aStaleSignInFormComesBackWithWhatWasTyped(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            _ = try await Self.owner(server)
            let form = try await Self.form(server)
            let stale = try await Self.post(
                server, "/console/sign-in", ["email": "owner@example.com", "password": Self.password, "csrf": form.token],
                cookie: "redeem_console_form=gone")
            #expect(stale.status == 403 && stale.body.contains("This page had been open too long"), "\(stale.body)")
            #expect(stale.body.contains(#"value="owner@example.com""#) && !stale.body.contains(Self.password))
            #expect(Self.cookieValue(stale, "redeem_console") == nil, "no session from it")
            let fresh = try #require(Self.cookieValue(stale, "redeem_console_form"))
            let signedIn = try await Self.post(
                server, "/console/sign-in",
                ["email": "owner@example.com", "password": Self.password, "csrf": try ConsoleOperationsTests.csrf(stale)],
                cookie: "redeem_console_form=\(fresh)")
            #expect(signedIn.status == 303 && Self.cookieValue(signedIn, "redeem_console") != nil)

            let reset = try await Self.post(
                server, "/console/reset", ["email": "owner@example.com", "csrf": "stale"], cookie: "redeem_console_team_form=gone")
            #expect(reset.status == 403 && reset.body.contains("open too long"), "the reset form's page likewise")
        }
    }

    @Test(arguments: TestDatabases.available)
    func pagesNeedASessionAndSignInSetsASafeCookie(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            _ = try await Self.owner(server)
            for path in ["/console", "/console/apps/\(app.id)", "/console/apps/\(app.id)/customers/cus_x"] {
                let reply = try await server.send(.get, path, key: nil)
                #expect(reply.status == 303, "\(path)")
                #expect(reply.headers[.location] == "/console/sign-in", "\(path)")
            }
            let form = try await Self.form(server)
            let signedIn = try await Self.post(
                server, "/console/sign-in", ["email": "Owner@Example.com ", "password": Self.password, "csrf": form.token],
                cookie: "redeem_console_form=\(form.cookie)")
            #expect(signedIn.status == 303)
            let setCookie = try #require(signedIn.headers[values: .setCookie].first { $0.hasPrefix("redeem_console=") })
            for attribute in ["HttpOnly", "SameSite=Strict", "Path=/console", "Secure"] {
                #expect(setCookie.contains(attribute), "\(setCookie)")
            }
            let token = try #require(Self.cookieValue(signedIn, "redeem_console"))
            #expect(token.count >= 22)
            // The token is stored only as its hash.
            #expect(try await server.deps.store.operatorSession(tokenHash: token) == nil)
            #expect(try await server.deps.store.operatorSession(tokenHash: SecretToken.hash(token)) != nil)
            let home = try await server.send(.get, "/console", key: nil, headers: [.cookie: "redeem_console=\(token)"])
            #expect(home.status == 303)
            #expect(home.headers[.location] == "/console/apps/\(app.id)")
            let search = try await server.send(.get, "/console/apps/\(app.id)", key: nil, headers: [.cookie: "redeem_console=\(token)"])
            #expect(search.status == 200)
            #expect(search.body.contains("owner@example.com"))
        }
    }

    @Test(arguments: TestDatabases.available)
    func formsWithoutTheirTokenAreRefused(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            _ = try await Self.owner(server)
            let form = try await Self.form(server)
            let noToken = try await Self.post(
                server, "/console/sign-in", ["email": "owner@example.com", "password": Self.password], cookie: "redeem_console_form=\(form.cookie)")
            #expect(noToken.status == 403)
            #expect(noToken.headers[.contentType]?.hasPrefix("text/html") == true)
            let otherCookie = try await Self.post(
                server, "/console/sign-in", ["email": "owner@example.com", "password": Self.password, "csrf": form.token],
                cookie: "redeem_console_form=somethingelse")
            #expect(otherCookie.status == 403)
            #expect(Self.cookieValue(otherCookie, "redeem_console") == nil)
            // Signing out needs the session's form token; without it the session lives on.
            let session = try await Self.signIn(server)
            let forged = try await Self.post(server, "/console/sign-out", ["csrf": form.token], cookie: "redeem_console=\(session)")
            #expect(forged.status == 403)
            #expect(try await server.deps.store.operatorSession(tokenHash: SecretToken.hash(session))?.endedAt == nil)
            let page = try await server.send(.get, "/console", key: nil, headers: [.cookie: "redeem_console=\(session)"])
            #expect(page.status == 200 && !page.body.contains("name=\"password\""), "still signed in: \(page.status)")
        }
    }

    @Test(arguments: TestDatabases.available)
    func signOutEndsTheSessionAndIdleSessionsExpire(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createApp()
            _ = try await Self.owner(server)
            let session = try await Self.signIn(server)
            let page = try await server.send(.get, "/console/apps/\(app.id)", key: nil, headers: [.cookie: "redeem_console=\(session)"])
            let csrf = try #require(page.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1)
            let out = try await Self.post(server, "/console/sign-out", ["csrf": String(csrf)], cookie: "redeem_console=\(session)")
            #expect(out.status == 303)
            #expect(out.headers[.location] == "/console/sign-in")
            let after = try await server.send(.get, "/console/apps/\(app.id)", key: nil, headers: [.cookie: "redeem_console=\(session)"])
            #expect(after.status == 303)

            let idle = try await Self.signIn(server)
            clock.advance(by: OperatorSessionRules.idleTimeout - 60)
            #expect(try await server.send(.get, "/console/apps/\(app.id)", key: nil, headers: [.cookie: "redeem_console=\(idle)"]).status == 200)
            clock.advance(by: OperatorSessionRules.idleTimeout + 1)
            #expect(try await server.send(.get, "/console/apps/\(app.id)", key: nil, headers: [.cookie: "redeem_console=\(idle)"]).status == 303)
        }
    }

    @Test(arguments: TestDatabases.available)
    func wrongPasswordAndUnknownAddressLookAlikeAndAreRateLimited(_ backend: TestBackend) async throws {
        var limits = RateLimits.unlimited
        limits.signInPerAccount = 3
        try await TestServer.with(backend, rateLimits: limits) { server in
            _ = try await Self.owner(server)
            var bodies: [String] = []
            for email in ["owner@example.com", "nobody@example.com"] {
                let form = try await Self.form(server)
                let reply = try await Self.post(
                    server, "/console/sign-in", ["email": email, "password": "wrong password!", "csrf": form.token],
                    cookie: "redeem_console_form=\(form.cookie)")
                #expect(reply.status == 401)
                bodies.append(
                    reply.body.replacingOccurrences(of: email, with: "E").replacing(/value="[^"]*"/, with: "V").replacing(/nonce[^ >]*/, with: "N"))
            }
            #expect(bodies[0] == bodies[1])
            var statuses: [Int] = []
            for _ in 0..<3 {
                let form = try await Self.form(server)
                statuses.append(
                    try await Self.post(
                        server, "/console/sign-in", ["email": "owner@example.com", "password": Self.password, "csrf": form.token],
                        cookie: "redeem_console_form=\(form.cookie)"
                    ).status)
            }
            // Three attempts per account: after one wrong password, two more are let through (the right password signs
            // in), and the fourth is refused even with the right password.
            #expect(statuses == [303, 303, 429])
        }
    }

    @Test(arguments: TestDatabases.available)
    func searchFindsABuyerByEmailAndTheCustomerPageShowsTheAttempts(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await Self.owner(server, role: .support)
            let reply = try await server.grant(app, #"{"app_user_id": "web-buyer-1", "product_id": "monthly", "email": "Buyer@Example.com"}"#)
            let token = try RedemptionAPITests.token(from: reply)
            #expect(try await RedemptionAPITests.redeem(server, app, user: "phone-user-9", token: token).status == 200)
            let session = try await Self.signIn(server)
            let cookie: HTTPFields = [.cookie: "redeem_console=\(session)"]
            let found = try await server.send(.get, "/console/apps/\(app.id)?q=buyer%40example.com", key: nil, headers: cookie)
            #expect(found.status == 200)
            #expect(found.body.contains("<td>e-mail</td>"), "\(found.body)")
            let link = try #require(found.body.firstMatch(of: /href="(\/console\/apps\/[^"]+\/customers\/[^"]+)"/)?.1)
            let page = try await server.send(.get, String(link), key: nil, headers: cookie)
            #expect(page.status == 200)
            // The app's restore behaviour moved the purchase to the app user who redeemed it; the e-mail finds them (the
            // support role reads it masked).
            #expect(page.body.contains(#"<h1 class="wrap">B***@E***.com</h1>"#) && page.body.contains("App user ID <code>phone-user-9</code>"))
            #expect(page.body.contains("<strong>Link redeemed</strong> · <span class=\"detail\">monthly · by phone-user-9</span>"), "\(page.body)")
            #expect(page.body.contains("monthly"))
            #expect(page.body.contains("<li><strong>pro</strong> <span class=\"pill pill--active\">active</span>"), "the entitlement, active")
            #expect(page.body.contains("Redemption attempt: redeemed"))
            #expect(page.body.contains("pill--active"))
            let purchaseID = try #require(try reply.string("purchase.id"))
            let byID = try await server.send(.get, "/console/apps/\(app.id)?q=\(purchaseID)", key: nil, headers: cookie)
            #expect(byID.body.contains("purchase ID"))
            let none = try await server.send(.get, "/console/apps/\(app.id)?q=nobody%40example.com", key: nil, headers: cookie)
            #expect(none.body.contains("No customer matches"))
        }
    }

    @Test(arguments: TestDatabases.available)
    func operatorsAreAuditedAndDisablingEndsSessions(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let service = OperatorService(store: server.deps.store, clock: server.deps.clock, cost: 4)
            _ = try await Self.owner(server)
            await #expect(throws: ValidationError.self) {
                try await service.create(email: "short@example.com", role: .support, password: "short", actor: "test")
            }
            await #expect(throws: StoreError.self) {
                try await service.create(email: "OWNER@example.com", role: .support, password: Self.password, actor: "test")
            }
            let session = try await Self.signIn(server)
            _ = try await service.setDisabled(email: "owner@example.com", true, actor: "test")
            let after = try await server.send(.get, "/console", key: nil, headers: [.cookie: "redeem_console=\(session)"])
            #expect(after.headers[.location] == "/console/sign-in")
            let form = try await Self.form(server)
            let refused = try await Self.post(
                server, "/console/sign-in", ["email": "owner@example.com", "password": Self.password, "csrf": form.token],
                cookie: "redeem_console_form=\(form.cookie)")
            // The right password for a disabled account is told so (the Team page's owners can enable it).
            #expect(refused.status == 403 && refused.body.contains("This account is disabled"))
            let actions = try await server.deps.store.auditLog(appID: nil, limit: 10).map(\.action).filter { $0.hasPrefix("operator.") }
            #expect(actions.sorted() == ["operator.create", "operator.disable"])
        }
    }

    /// A new link is one token: shown once with its QR code, or e-mailed through real SMTP (the e-mail mints it); each
    /// works in the app, and each action is audited under the operator's name; without the form token it is refused.
    @Test(arguments: TestDatabases.available)
    func supportSendsANewLinkThatWorksAndIsAudited(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                let app = try await server.createAppWithCatalog()
                _ = try await Self.owner(server, email: "help@example.com", role: .support)
                let reply = try await server.grant(app, #"{"app_user_id": "buyer-7", "product_id": "lifetime", "email": "buyer7@example.com"}"#)
                let purchaseID = try #require(try reply.string("purchase.id"))
                let session = try await Self.signIn(server, email: "help@example.com")
                let cookie = "redeem_console=\(session)"
                let path = "/console/apps/\(app.id)/purchases/\(purchaseID)/link"
                #expect(try await Self.post(server, path, ["csrf": "forged"], cookie: cookie).status == 403)
                let search = try await server.send(.get, "/console/apps/\(app.id)", key: nil, headers: [.cookie: cookie])
                let csrf = String(try #require(search.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1))
                // Shown: one token, on this page only; nothing is e-mailed.
                let shown = try await Self.post(server, path, ["csrf": csrf, "delivery": "show"], cookie: cookie)
                #expect(shown.status == 200)
                #expect(shown.headers[.cacheControl] == "no-store")
                #expect(shown.body.contains("<svg"), "the QR code")
                #expect(shown.body.contains("This is the only new link: it was not e-mailed."))
                let shownLink = String(try #require(shown.body.firstMatch(of: /https:\/\/pay\.example\.com\/r\/[A-Za-z0-9_-]{43}/)?.output))
                #expect(await server.deps.mailer?.drain() == 0)
                // E-mailed: one token, minted by the e-mail; nothing is shown.
                let linksBefore = try await server.deps.store.redemptionLinks(appID: app.id, purchaseID: purchaseID).count
                let emailed = try await Self.post(server, path, ["csrf": csrf, "delivery": "email"], cookie: cookie)
                #expect(emailed.status == 303)
                #expect(emailed.headers[.location] == "/console/apps/\(app.id)?notice=link-emailed")
                #expect(await server.deps.mailer?.drain() == 1)
                #expect(try await server.deps.store.redemptionLinks(appID: app.id, purchaseID: purchaseID).count == linksBefore + 1)
                let mailed = try EmailFlowTests.link(in: try #require(try smtp.received().first))
                #expect(mailed != shownLink)
                // A second e-mail within the quiet period is refused, not queued.
                #expect(try await Self.post(server, path, ["csrf": csrf, "delivery": "email"], cookie: cookie).status == 409)
                for link in [shownLink, mailed] {
                    let redeemed = try await RedemptionAPITests.redeem(server, app, user: "buyer-7", token: String(link.split(separator: "/").last!))
                    #expect(redeemed.status == 200, "\(redeemed.body)")
                }
                let audit = try await server.deps.store.auditLog(appID: app.id, limit: 50).filter(\.isSupportAction)
                #expect(audit.map(\.action) == ["purchase.link", "purchase.link"])
                #expect(Set(audit.compactMap(\.detail)) == ["shown", "e-mailed"])
                #expect(audit.first?.actor == "operator:help@example.com")
                #expect(audit.first?.objectID == purchaseID)
            }
        }
    }

    /// The customer page leads with the person (their e-mail, then the app user ID), names products and stores in words,
    /// marks a sandbox purchase as a test with its fast clock, and opening it is not a sighting (`last_seen` stays).
    @Test(arguments: TestDatabases.available)
    func theCustomerPageLeadsWithThePersonAndLookingIsNotASighting(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createAppWithCatalog()
            let named = try await server.send(
                .patch, "/admin/v1/apps/\(app.id)/products/lifetime", key: app.secret, json: #"{"display_name": "Lifetime access"}"#)
            #expect(named.status == 200, "\(named.body)")
            _ = try await Self.owner(server)
            let buyer = "$RCAnonymousID:0123456789abcdef0123456789abcdef"
            _ = try await server.grant(
                app, #"{"app_user_id": "\#(buyer)", "product_id": "lifetime", "email": "ann@example.com", "is_sandbox": true}"#)
            let owner = "redeem_console=\(try await Self.signIn(server))"
            let found = try await server.send(.get, "/console/apps/\(app.id)?q=ann%40example.com", key: nil, headers: [.cookie: owner])
            let customerID = String(try #require(found.body.firstMatch(of: /customers\/(cus_[A-Za-z0-9_]+)/)?.1))
            let seen = try await server.deps.store.customer(appID: app.id, id: customerID).lastSeen
            clock.advance(by: 3 * 3600)
            let page = try await server.send(.get, "/console/apps/\(app.id)/customers/\(customerID)", key: nil, headers: [.cookie: owner])
            #expect(page.status == 200)
            #expect(page.body.contains(#"<h1 class="wrap">ann@example.com</h1>"#) && page.body.contains(buyer))
            #expect(page.body.contains("<h3>Lifetime access ") && page.body.contains("Recorded through the server API"))
            #expect(page.body.contains("test · sandbox"))
            // Recorded through the API, its dates are real: only the sandbox checkout's subscriptions run fast.
            #expect(page.body.contains("A sandbox purchase: no money moved.") && !page.body.contains("a month lasts 5 minutes"))
            #expect(try await server.deps.store.customer(appID: app.id, id: customerID).lastSeen == seen, "looking is not a sighting")
        }
    }

    /// An owner cancels a subscription at period end and resumes it; a Stripe purchase on a server without Stripe offers
    /// no action that would fail, and says why.
    @Test(arguments: TestDatabases.available)
    func ownersResumeWhatWasCancelledAndStripeActionsNeedStripe(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await Self.owner(server)
            let sandbox = try await server.grant(
                app, #"{"app_user_id": "renewer", "product_id": "monthly", "is_sandbox": true, "store": "rc_billing"}"#)
            let purchaseID = try #require(try sandbox.string("purchase.id"))
            _ = try await server.grant(
                app, #"{"app_user_id": "renewer", "product_id": "lifetime", "store": "stripe", "store_transaction_id": "cs_test_1"}"#)
            let owner = "redeem_console=\(try await Self.signIn(server))"
            let found = try await server.send(.get, "/console/apps/\(app.id)?q=\(purchaseID)", key: nil, headers: [.cookie: owner])
            let customerPath = String(try #require(found.body.firstMatch(of: /href="(\/console\/apps\/[^"]+\/customers\/[^"]+)"/)?.1))
            let before = try await server.send(.get, customerPath, key: nil, headers: [.cookie: owner])
            let csrf = try ConsoleOperationsTests.csrf(before)
            #expect(before.body.contains("Cancel at period end") && !before.body.contains("Resume renewing"))
            #expect(before.body.contains("goes through Stripe, which is not configured on this server"))
            #expect(before.body.components(separatedBy: "Cancel at period end").count == 2, "only the sandbox subscription offers it")
            let cancelled = try await Self.post(
                server, "/console/apps/\(app.id)/purchases/\(purchaseID)/cancel", ["csrf": csrf, "confirm": "yes"], cookie: owner)
            #expect(cancelled.status == 303)
            let after = try await server.send(.get, customerPath, key: nil, headers: [.cookie: owner])
            let expires = try #require(try await server.deps.store.purchase(appID: app.id, id: purchaseID).expiresDate)
            let day = String(ISODate.format(expires).prefix(10))
            #expect(after.body.contains("Ends \(day)") && after.body.contains("; won’t renew") && after.body.contains("Resume renewing"))
            let resumed = try await Self.post(server, "/console/apps/\(app.id)/purchases/\(purchaseID)/resume", ["csrf": csrf], cookie: owner)
            #expect(resumed.status == 303 && resumed.headers[.location]?.hasSuffix("?notice=resumed") == true)
            #expect(try await server.deps.store.purchase(appID: app.id, id: purchaseID).unsubscribeDetectedAt == nil)
            let audit = try await server.deps.store.auditLog(appID: app.id, limit: 10).map(\.action)
            #expect(audit.prefix(2) == ["purchase.resume", "purchase.cancel"])
        }
    }

    /// A subscription bought at the sandbox checkout runs on the sandbox clock, and its customer page says so.
    @Test(arguments: TestDatabases.available)
    func aSandboxCheckoutSubscriptionSaysItsClockRunsFast(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            _ = try await Self.owner(server)
            let form = try await server.send(.get, "/sandbox/p/\(app.id)/monthly/fast-buyer", key: nil)
            let paid = try await server.send(
                .post, "/sandbox/p/\(app.id)/monthly/fast-buyer", key: nil,
                json: "email=fast%40example.com&checkout_id=\(try CheckoutTests.checkoutID(form))", headers: CheckoutTests.form)
            #expect(paid.status == 303)
            let owner = "redeem_console=\(try await Self.signIn(server))"
            let found = try await server.send(.get, "/console/apps/\(app.id)?q=fast-buyer", key: nil, headers: [.cookie: owner])
            let customerPath = String(try #require(found.body.firstMatch(of: /href="(\/console\/apps\/[^"]+\/customers\/[^"]+)"/)?.1))
            let page = try await server.send(.get, customerPath, key: nil, headers: [.cookie: owner])
            #expect(page.body.contains("Sandbox checkout (test, no payment)") && page.body.contains("a week or a month lasts 5 minutes"))
        }
    }

    /// The audit log pages 50 at a time, newest first and stable, filters by who, what and the object, and names keys
    /// by their label.
    @Test(arguments: TestDatabases.available)
    func theAuditLogPagesFiltersAndNamesKeys(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            _ = try await Self.owner(server)
            let made = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/keys", key: app.secret, json: #"{"kind": "secret", "label": "Billing backend"}"#)
            let keyID = try #require(try made.string("id") ?? made.string("record.id"))
            for index in 0..<60 {
                let actor = index % 3 == 0 ? "key:\(keyID)" : "operator:owner@example.com"
                let action = index % 2 == 0 ? "purchase.refund" : "purchase.link"
                try await server.deps.store.recordRequest(
                    AuditEntry(
                        at: TestServer.start.addingTimeInterval(Double(index)), actor: actor, action: action, objectType: "purchase",
                        objectID: "pur_\(index)", appID: app.id))
            }
            let owner: HTTPFields = [.cookie: "redeem_console=\(try await Self.signIn(server))"]
            let first = try await server.send(.get, "/console/apps/\(app.id)/audit", key: nil, headers: owner)
            #expect(first.status == 200)
            let rows = first.body.matches(of: /<code>purchase (pur_\d+)<\/code>/).map { String($0.1) }
            #expect(rows.count == 50 && rows.first == "pur_59", "newest first, 50 a page")
            #expect(first.body.contains("key “Billing backend” (secret)") && !first.body.contains("<td>key:"), "keys by their label")
            let older = try #require(first.body.firstMatch(of: /href="([^"]+before=[^"]+)" rel="next"/)?.1)
            let second = try await server.send(.get, String(older).replacingOccurrences(of: "&amp;", with: "&"), key: nil, headers: owner)
            let rest = second.body.matches(of: /<code>purchase (pur_\d+)<\/code>/).map { String($0.1) }
            // The two pages hold every purchase entry once, and the second is the last.
            #expect(rows.count + rest.count == 60 && Set(rows + rest) == Set((0..<60).map { "pur_\($0)" }), "the next page follows on")
            #expect(rest.first == "pur_9" && !second.body.contains(#"rel="next""#))
            let refunds = try await server.send(.get, "/console/apps/\(app.id)/audit?action=purchase.refund", key: nil, headers: owner)
            let refunded = refunds.body.matches(of: /<code>purchase (pur_\d+)<\/code>/).map { String($0.1) }
            #expect(refunded.count == 30 && refunded.allSatisfy { (Int($0.dropFirst(4)) ?? 1) % 2 == 0 })
            let byKey = try await server.send(
                .get, "/console/apps/\(app.id)/audit?actor=key%3A\(keyID)&action=purchase.link", key: nil, headers: owner)
            let keyRows = byKey.body.matches(of: /<code>purchase (pur_\d+)<\/code>/).map { String($0.1) }
            #expect(keyRows == ["pur_57", "pur_51", "pur_45", "pur_39", "pur_33", "pur_27", "pur_21", "pur_15", "pur_9", "pur_3"])
            let one = try await server.send(.get, "/console/apps/\(app.id)/audit?object=pur_7", key: nil, headers: owner)
            #expect(one.body.matches(of: /<code>purchase (pur_\d+)<\/code>/).map { String($0.1) } == ["pur_7"])
            let bad = try await server.send(.get, "/console/apps/\(app.id)/audit?before=yesterday", key: nil, headers: owner)
            #expect(bad.status == 400 && bad.body.contains("Sign out"), "a console page, not an error page")
        }
    }

    /// Owners refund a sandbox purchase (confirmed, audited, access revoked); support may not, nor may anyone refund a
    /// paid purchase from here.
    @Test(arguments: TestDatabases.available)
    func ownersRefundSandboxPurchasesAndSupportMayNot(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await Self.owner(server)
            _ = try await Self.owner(server, email: "help@example.com", role: .support)
            let sandbox = try await server.grant(app, #"{"app_user_id": "tester", "product_id": "lifetime", "is_sandbox": true}"#)
            let paid = try await server.grant(app, #"{"app_user_id": "tester", "product_id": "monthly"}"#)
            let sandboxID = try #require(try sandbox.string("purchase.id"))
            let paidID = try #require(try paid.string("purchase.id"))

            func csrf(_ session: String) async throws -> String {
                let page = try await server.send(.get, "/console/apps/\(app.id)", key: nil, headers: [.cookie: "redeem_console=\(session)"])
                return String(try #require(page.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1))
            }
            let support = try await Self.signIn(server, email: "help@example.com")
            let refused = try await Self.post(
                server, "/console/apps/\(app.id)/purchases/\(sandboxID)/refund", ["csrf": try await csrf(support), "confirm": "yes"],
                cookie: "redeem_console=\(support)")
            #expect(refused.status == 403)
            #expect(refused.body.contains("may not refund"))

            let owner = try await Self.signIn(server)
            let token = try await csrf(owner)
            let customer = try await server.send(
                .get, "/console/apps/\(app.id)?q=\(sandboxID)", key: nil, headers: [.cookie: "redeem_console=\(owner)"])
            #expect(customer.status == 200)
            let unconfirmed = try await Self.post(
                server, "/console/apps/\(app.id)/purchases/\(sandboxID)/refund", ["csrf": token], cookie: "redeem_console=\(owner)")
            #expect(unconfirmed.status == 400)
            let notSandbox = try await Self.post(
                server, "/console/apps/\(app.id)/purchases/\(paidID)/refund", ["csrf": token, "confirm": "yes"], cookie: "redeem_console=\(owner)")
            #expect(notSandbox.status == 409)
            #expect(try await server.send(.get, "/v1/subscribers/tester", key: app.secret).body.contains("\"lifetime\""))
            let done = try await Self.post(
                server, "/console/apps/\(app.id)/purchases/\(sandboxID)/refund", ["csrf": token, "confirm": "yes"], cookie: "redeem_console=\(owner)")
            #expect(done.status == 303)
            #expect(done.headers[.location]?.hasPrefix("/console/apps/\(app.id)/customers/") == true)
            let info = try await server.send(.get, "/v1/subscribers/tester", key: app.secret)
            let entitlement = try #require(try info.object().value(at: "subscriber.entitlements.pro") as? [String: Any])
            #expect(entitlement["product_identifier"] as? String == "monthly", "the refunded lifetime no longer grants pro")
            let again = try await Self.post(
                server, "/console/apps/\(app.id)/purchases/\(sandboxID)/refund", ["csrf": token, "confirm": "yes"], cookie: "redeem_console=\(owner)")
            #expect(again.status == 409)
            let audit = try await server.deps.store.auditLog(appID: app.id, limit: 50).filter(\.isSupportAction)
            #expect(audit.map(\.action) == ["purchase.refund"])
            #expect(audit.first?.actor == "operator:owner@example.com")
            try await server.deps.store.recordRequest(
                AuditEntry(at: TestServer.start, actor: "test", action: "elsewhere.change", objectType: "app", objectID: "x", appID: "app_other"))
            let page = try await server.send(.get, "/console/apps/\(app.id)/audit", key: nil, headers: [.cookie: "redeem_console=\(owner)"])
            #expect(!page.body.contains("elsewhere.change"), "another app's entries stay off this app's page")
            #expect(page.status == 200)
            #expect(page.body.contains("<td>purchase.refund</td>") && page.body.contains("<td>operator.create</td>"))
            let hidden = try await server.send(.get, "/console/apps/\(app.id)/audit", key: nil, headers: [.cookie: "redeem_console=\(support)"])
            #expect(hidden.status == 403)
        }
    }

    /// The same support operations through the admin API: search, a new link (shown once, no-store), a sandbox refund,
    /// each audited under the key that made it; other apps' secret keys and public keys are refused.
    @Test(arguments: TestDatabases.available)
    func theAdminAPIRunsTheSameSupportOperations(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let other = try await server.createApp()
            let reply = try await server.grant(
                app, #"{"app_user_id": "api-buyer", "product_id": "lifetime", "email": "api@example.com", "is_sandbox": true}"#)
            let purchaseID = try #require(try reply.string("purchase.id"))
            let found = try await server.send(.get, "/admin/v1/apps/\(app.id)/customers?q=API%40example.com", key: app.secret)
            #expect(found.status == 200)
            let customers = try #require(try found.object()["customers"] as? [[String: Any]])
            #expect(customers.map { $0["original_app_user_id"] as? String } == ["api-buyer"])
            #expect(customers.first?["matched"] as? String == "e-mail")
            #expect(try await server.send(.get, "/admin/v1/apps/\(app.id)/customers?q=x", key: other.secret).status == 403)
            #expect(try await server.send(.get, "/admin/v1/apps/\(app.id)/customers?q=x", key: app.publicProduction).status == 403)
            #expect(try await server.send(.get, "/admin/v1/apps/\(app.id)/customers?q=x&page=0", key: app.secret).status == 400)

            let link = try await server.send(.post, "/admin/v1/apps/\(app.id)/purchases/\(purchaseID)/links", key: app.secret)
            #expect(link.status == 201, "\(link.body)")
            #expect(link.headers[.cacheControl] == "no-store")
            let https = try #require(try link.string("redemption_https_url"))
            let redeemed = try await RedemptionAPITests.redeem(server, app, user: "api-buyer", token: String(https.split(separator: "/").last!))
            #expect(redeemed.status == 200)

            let refunded = try await server.send(.post, "/admin/v1/apps/\(app.id)/purchases/\(purchaseID)/refund", key: server.adminKey)
            #expect(refunded.status == 200, "\(refunded.body)")
            #expect(try refunded.string("refunded_at") != nil)
            #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/purchases/\(purchaseID)/refund", key: app.secret).status == 409)
            #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/purchases/pur_nope/refund", key: app.secret).status == 404)

            let audit = try await server.deps.store.auditLog(appID: app.id, limit: 50).filter(\.isSupportAction)
            #expect(audit.map(\.action).sorted() == ["purchase.link", "purchase.refund"])
            #expect(audit.allSatisfy { $0.actor.hasPrefix("key:") })
            #expect(Set(audit.map(\.actor)).count == 2, "the admin key refunded, the app's secret key sent the link")
        }
    }
}

extension AuditEntry {
    /// Support actions, as opposed to the catalog writes a test's set-up makes.
    var isSupportAction: Bool { ["purchase", "email"].contains(objectType) && action != "purchase.create" || action.hasPrefix("grant.") }
}
