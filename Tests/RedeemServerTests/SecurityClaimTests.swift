import Foundation
import HTTPTypes
import RedeemCore
import RedeemStore
import RedeemTestSupport
import Testing

@testable import RedeemServer

/// The security claims of docs/portal.md and docs/console.md, each against the real routes with an injected clock:
/// lifetimes at their boundaries, and every guessable route reaching 429 with `Retry-After`.
@Suite struct SecurityClaimTests {
    static let buyer = "claims.buyer@example.com"

    /// Asks for a portal sign-in link and returns its path, read from the SMTP server.
    static func signInLink(_ server: TestServer, _ app: CreatedAppKeys, smtp: SMTPTestServer) async throws -> String {
        #expect(try await PortalTests.ask(server, app.id, email: Self.buyer).status == 200)
        #expect(await server.deps.mailer?.drain() == 1)
        return try PortalTests.signInLink(in: try #require(try smtp.received().last))
    }

    static func limited(_ reply: TestServer.Reply, _ what: String) {
        #expect(reply.status == 429, "\(what): \(reply.status)")
        #expect(Int(reply.headers[.retryAfter] ?? "") ?? 0 > 0, "\(what): Retry-After")
    }

    /// docs/portal.md: a sign-in link works within 15 minutes of being sent; a session lasts 12 hours.
    @Test(arguments: TestDatabases.available)
    func portalLinksLastFifteenMinutesAndSessionsTwelveHours(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            let clock = ManualClock(TestServer.start)
            try await TestServer.with(backend, clock: clock, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                let app = try await server.createAppWithCatalog()
                _ = try await server.grant(
                    app, #"{"app_user_id": "c-1", "product_id": "lifetime", "email": "\#(Self.buyer)", "store": "rc_billing"}"#)
                _ = await server.deps.mailer?.drain()

                // One second short of 15 minutes: it works.
                let fresh = try await Self.signInLink(server, app, smtp: smtp)
                clock.advance(by: 15 * 60 - 1)
                let session = try await PortalTests.signIn(server, path: fresh)
                // At 15 minutes exactly: used up, like any expired link.
                clock.advance(by: 60)  // a minute apart: one sign-in e-mail a minute per purchase
                let late = try await Self.signInLink(server, app, smtp: smtp)
                // The page was opened while the link was fresh; confirming it at 15 minutes signs no one in.
                let page = try await server.send(.get, late, key: nil)
                let formCookie = try #require(ConsoleTests.cookieValue(page, "redeem_portal_form"))
                clock.advance(by: 15 * 60)
                let expired = try await server.send(.get, late, key: nil)
                #expect(expired.status == 410, "\(expired.status)")
                let confirmed = try await ConsoleTests.post(
                    server, late, ["csrf": try ConsoleOperationsTests.csrf(page)], cookie: "redeem_portal_form=\(formCookie)")
                #expect(confirmed.status == 410, "\(confirmed.status)")
                #expect(ConsoleTests.cookieValue(confirmed, "redeem_portal") == nil)

                // The session: still open one second before 12 hours from sign-in, over at 12 hours.
                let signedInAt = TestServer.start.addingTimeInterval(15 * 60 - 1)
                clock.advance(by: signedInAt.addingTimeInterval(12 * 3600 - 1).timeIntervalSince(clock.now()))
                let open = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session])
                #expect(open.body.contains(Self.buyer), "signed in as the buyer")
                clock.advance(by: 1)
                let over = try await server.send(.get, "/account/\(app.id)", key: nil, headers: [.cookie: session])
                #expect(!over.body.contains(Self.buyer) && over.body.contains("Send me a sign-in link"))
            }
        }
    }

    /// docs/portal.md: asking for a sign-in link is limited per client and per address, and using links per client.
    @Test(arguments: TestDatabases.available)
    func portalSignInIsRateLimited(_ backend: TestBackend) async throws {
        var limits = RateLimits.unlimited
        limits.newLinkPerEmail = 2
        limits.newLinkPerIP = 4
        limits.redeemPerIP = 3
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port), rateLimits: limits) { server in
                let app = try await server.createAppWithCatalog()
                for _ in 0..<2 { #expect(try await PortalTests.ask(server, app.id, email: "one@example.com").status == 200) }
                Self.limited(try await PortalTests.ask(server, app.id, email: "one@example.com"), "per address")
                // A refused request still counts against the client: 2 + 1 refused + 1 fills its 4.
                #expect(try await PortalTests.ask(server, app.id, email: "other@example.com").status == 200)
                Self.limited(try await PortalTests.ask(server, app.id, email: "fresh@example.com"), "per client")
                // Guessing sign-in tokens (with a real form, as a browser would) costs a hit each.
                let form = try await PortalTests.form(server, app.id)
                func guess() async throws -> TestServer.Reply {
                    try await ConsoleTests.post(
                        server, "/account/\(app.id)/sign-in/\(RedemptionLink.newToken())", ["csrf": form.token],
                        cookie: "redeem_portal_form=\(form.cookie)")
                }
                for _ in 0..<3 { #expect(try await guess().status == 410) }
                Self.limited(try await guess(), "link guesses")
            }
        }
    }

    /// docs/console.md: sign-in attempts are limited per client as well as per account, and authenticator codes count
    /// as sign-in attempts do.
    @Test(arguments: TestDatabases.available)
    func consoleSignInAndCodesAreRateLimited(_ backend: TestBackend) async throws {
        var limits = RateLimits.unlimited
        limits.signInPerIP = 3
        limits.signInPerAccount = 4
        try await TestServer.with(backend, rateLimits: limits) { server in
            // Per client: three different accounts, then a fourth is refused whoever it is.
            for n in 0..<3 {
                let form = try await ConsoleTests.form(server)
                let wrong = try await ConsoleTests.post(
                    server, "/console/sign-in", ["email": "nobody\(n)@example.com", "password": "nope", "csrf": form.token],
                    cookie: "redeem_console_form=\(form.cookie)")
                #expect(wrong.status == 401, "\(wrong.status)")
            }
            let form = try await ConsoleTests.form(server)
            Self.limited(
                try await ConsoleTests.post(
                    server, "/console/sign-in", ["email": "someone@example.com", "password": "nope", "csrf": form.token],
                    cookie: "redeem_console_form=\(form.cookie)"), "per client")
        }
        limits.signInPerIP = 100
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock, rateLimits: limits) { server in
            _ = try await ConsoleTests.owner(server, email: "codes@example.com", role: .support)
            _ = try await TwoFactorTests.enrol(server, session: try await ConsoleTests.signIn(server, email: "codes@example.com"))
            clock.advance(by: 60)  // a new window: enrolling counted its own attempts
            let form = try await ConsoleTests.form(server)
            let password = try await ConsoleTests.post(
                server, "/console/sign-in", ["email": "codes@example.com", "password": ConsoleTests.password, "csrf": form.token],
                cookie: "redeem_console_form=\(form.cookie)")
            let cookie = "redeem_console=\(try #require(ConsoleTests.cookieValue(password, "redeem_console")))"
            let step = try await server.send(.get, "/console/sign-in/code", key: nil, headers: [.cookie: cookie])
            let csrf = try TwoFactorTests.csrf(step)
            // The password counted once; three wrong codes fill the account's four attempts; the next is refused.
            for _ in 0..<3 {
                #expect(try await ConsoleTests.post(server, "/console/sign-in/code", ["csrf": csrf, "code": "000000"], cookie: cookie).status == 401)
            }
            Self.limited(try await ConsoleTests.post(server, "/console/sign-in/code", ["csrf": csrf, "code": "000000"], cookie: cookie), "codes")
        }
    }

    /// README: asking for new redemption links is limited per client and per address.
    @Test(arguments: TestDatabases.available)
    func newLinkRequestsAreRateLimited(_ backend: TestBackend) async throws {
        var limits = RateLimits.unlimited
        limits.newLinkPerEmail = 2
        limits.newLinkPerIP = 4
        try await TestServer.with(backend, rateLimits: limits) { server in
            let app = try await server.createAppWithCatalog()
            // A refused request still counts against the client: 2 + 1 refused + 1 fills its 4.
            func ask(_ email: String) async throws -> TestServer.Reply {
                try await server.send(.post, "/v1/redemption_links/request", key: app.publicSandbox, json: #"{"email": "\#(email)"}"#)
            }
            for _ in 0..<2 { #expect(try await ask("same@example.com").status == 202) }
            Self.limited(try await ask("same@example.com"), "per address")
            #expect(try await ask("else@example.com").status == 202)
            Self.limited(try await ask("third@example.com"), "per client")
        }
    }

    /// RFC 6238, appendix B: the published SHA-1 vectors (secret "12345678901234567890"), truncated to the six digits
    /// an authenticator app shows. The oracle is the RFC, not the library production uses.
    @Test func authenticatorCodesMatchRFC6238() {
        let secret = "12345678901234567890"
        let vectors: [(TimeInterval, String)] = [
            (59, "287082"), (1_111_111_109, "081804"), (1_111_111_111, "050471"), (1_234_567_890, "005924"),
            (2_000_000_000, "279037"), (20_000_000_000, "353130"),
        ]
        for (time, code) in vectors {
            let now = Date(timeIntervalSince1970: time)
            #expect(TwoFactor.matchingStep(code: code, secret: secret, now: now) == Int64(time) / 30, "\(time)")
            // A code from two steps away no longer matches.
            #expect(TwoFactor.matchingStep(code: code, secret: secret, now: now.addingTimeInterval(61)) == nil, "\(time)")
        }
        #expect(TwoFactor.matchingStep(code: "287083", secret: secret, now: Date(timeIntervalSince1970: 59)) == nil)
    }

    /// docs/console.md's durations, as numbers: a session idles out after 8 hours, lasts 7 days at most, and a sign-in
    /// waits 5 minutes for its code.
    @Test func consoleDurationsAreTheDocumentedOnes() {
        #expect(OperatorSessionRules.idleTimeout == 8 * 3600)
        #expect(OperatorSessionRules.maximumAge == 7 * 86_400)
        #expect(OperatorSessionRules.codeWindow == 5 * 60)
        #expect(PortalRules.signInLinkLifetime == 15 * 60)
        #expect(PortalRules.sessionLifetime == 12 * 3600)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        func live(lastSeen: TimeInterval, now: TimeInterval) -> Bool {
            OperatorSessionRules.isLive(
                createdAt: start, lastSeen: start.addingTimeInterval(lastSeen), endedAt: nil, now: start.addingTimeInterval(now))
        }
        #expect(live(lastSeen: 0, now: 8 * 3600 - 1) && !live(lastSeen: 0, now: 8 * 3600))
        #expect(live(lastSeen: 7 * 86_400 - 60, now: 7 * 86_400 - 1) && !live(lastSeen: 7 * 86_400 - 60, now: 7 * 86_400))
    }
}
