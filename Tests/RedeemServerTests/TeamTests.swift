import Foundation
import HTTPTypes
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// The console's team through the router: invitations e-mailed to a real SMTP server on loopback and accepted,
/// owners' changes and who may make them, and password resets.
@Suite struct TeamTests {
    typealias C = ConsoleTests

    static func cookie(_ session: String) -> HTTPFields { [.cookie: "redeem_console=\(session)"] }

    /// A signed-in page's form token.
    static func csrf(_ server: TestServer, session: String) async throws -> String {
        let page = try await server.send(.get, "/console/team", key: nil, headers: cookie(session))
        #expect(page.status == 200, "\(page.body)")
        return String(try #require(page.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1))
    }

    /// A team page's POST as the signed-in operator.
    static func act(_ server: TestServer, _ path: String, _ fields: [String: String] = [:], session: String) async throws -> TestServer.Reply {
        var fields = fields
        fields["csrf"] = try await csrf(server, session: session)
        return try await C.post(server, path, fields, cookie: "redeem_console=\(session)")
    }

    /// Opens a link's page and returns it with its form's token and cookie.
    static func open(_ server: TestServer, _ path: String) async throws -> (reply: TestServer.Reply, token: String?, cookie: String?) {
        let reply = try await server.send(.get, path, key: nil)
        let token = reply.body.firstMatch(of: /name="csrf" value="([^"]+)"/).map { String($0.1) }
        return (reply, token, C.cookieValue(reply, "redeem_console_team_form"))
    }

    static func submit(_ server: TestServer, _ path: String, _ fields: [String: String]) async throws -> TestServer.Reply {
        let page = try await open(server, path)
        var fields = fields
        fields["csrf"] = page.token ?? "none"
        return try await C.post(server, path, fields, cookie: "redeem_console_team_form=\(page.cookie ?? "none")")
    }

    static func path(of link: String) -> String { String(link.dropFirst("https://pay.example.com".count)) }

    static func link(in mail: ReceivedMail, _ kind: String) throws -> String {
        let text = try #require(mail.body("text/plain"))
        let regex = try Regex("https://pay\\.example\\.com/console/\(kind)/[A-Za-z0-9_-]{43}")
        return String(try #require(text.firstMatch(of: regex)).output[0].substring!)
    }

    static func invitationState(_ server: TestServer, link: String) async throws -> TeamRules.InvitationState? {
        let token = String(link.split(separator: "/").last!)
        return try await server.deps.store.invitation(tokenHash: SecretToken.hash(token))?.state(now: server.deps.clock.now())
    }

    @Test(arguments: TestDatabases.available)
    func anInviteeOpensTheLinkSetsAPasswordAndIsSignedInWithTheirRole(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                _ = try await server.createApp()
                _ = try await C.owner(server)
                let owner = try await C.signIn(server)
                let invited = try await Self.act(
                    server, "/console/team/invitations", ["email": "New@Example.com", "role": "support"], session: owner)
                #expect(invited.status == 303 && invited.headers[.location] == "/console/team?notice=invited", "\(invited.body)")
                #expect(await server.deps.teamMailer?.drain() == 1)
                let mail = try #require(try smtp.received().first)
                #expect(mail.rcptTos == ["new@example.com"])
                let link = try Self.link(in: mail, "invitation")
                #expect(mail.body("text/html")?.contains(link) == true)
                let path = Self.path(of: link)
                // Opening the link (twice, as a mail scanner might) uses nothing.
                for _ in 0..<2 {
                    let page = try await Self.open(server, path)
                    #expect(page.reply.status == 200 && page.reply.body.contains("new@example.com"))
                }
                #expect(try await Self.invitationState(server, link: link) == .pending)
                let pending = try await server.send(.get, "/console/team", key: nil, headers: Self.cookie(owner))
                #expect(pending.body.contains("new@example.com") && pending.body.contains("/resend"))
                // A mismatched confirmation comes back on the form, nothing used.
                let mismatch = try await Self.submit(server, path, ["name": "Nia", "password": C.password, "confirm": C.password + "x"])
                #expect(mismatch.status == 422 && mismatch.body.contains("The two passwords differ") && mismatch.body.contains("value=\"Nia\""))
                // A page whose form cookie is gone (a restarted browser): the form again with the name, never the password.
                let opened = try await Self.open(server, path)
                let stale = try await C.post(
                    server, path, ["name": "Nia", "password": C.password, "confirm": C.password, "csrf": opened.token ?? "none"],
                    cookie: "redeem_console_team_form=gone")
                #expect(stale.status == 403 && stale.body.contains("open too long") && stale.body.contains("value=\"Nia\""), "\(stale.body)")
                #expect(!stale.body.contains(C.password) && C.cookieValue(stale, "redeem_console") == nil)
                #expect(C.cookieValue(stale, "redeem_console_team_form") != nil, "a fresh token for the form shown again")
                #expect(try await Self.invitationState(server, link: link) == .pending, "nothing used")
                let accepted = try await Self.submit(server, path, ["name": "Nia Reed", "password": C.password, "confirm": C.password])
                #expect(accepted.status == 303 && accepted.headers[.location] == "/console", "\(accepted.body)")
                let session = try #require(C.cookieValue(accepted, "redeem_console"))
                // Signed in as support: the team read-only, no invite form, and the owner's pages refused.
                let team = try await server.send(.get, "/console/team", key: nil, headers: Self.cookie(session))
                #expect(team.status == 200 && team.body.contains("Nia Reed") && !team.body.contains("Send invitation"))
                let refused = try await Self.act(server, "/console/team/invitations", ["email": "x@example.com", "role": "owner"], session: session)
                #expect(refused.status == 403 && refused.headers[.contentType]?.hasPrefix("text/html") == true)
                // Used once: the link now says so, as a page.
                let again = try await Self.open(server, path)
                #expect(again.reply.status == 410 && again.reply.body.contains("already used"))
                #expect(again.reply.headers[.contentType]?.hasPrefix("text/html") == true)
                let actions = try await server.deps.store.auditLog().map(\.action)
                #expect(actions.contains("team.invite") && actions.contains("team.invitation.accept"))
            }
        }
    }

    @Test(arguments: TestDatabases.available)
    func expiredRevokedAndUnknownInvitationsAreRefusedAsPages(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, clock: clock, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                _ = try await C.owner(server)
                let owner = try await C.signIn(server)
                _ = try await Self.act(server, "/console/team/invitations", ["email": "late@example.com", "role": "owner"], session: owner)
                _ = try await Self.act(server, "/console/team/invitations", ["email": "gone@example.com", "role": "support"], session: owner)
                #expect(await server.deps.teamMailer?.drain() == 2)
                let mails = try smtp.received()
                let late = Self.path(of: try Self.link(in: try #require(mails.first { $0.rcptTos == ["late@example.com"] }), "invitation"))
                let gone = try #require(mails.first { $0.rcptTos == ["gone@example.com"] })
                let goneID = try #require(try await server.deps.store.openInvitations().first { $0.email == "gone@example.com" }?.id)
                let revoked = try await Self.act(server, "/console/team/invitations/\(goneID)/revoke", session: owner)
                #expect(revoked.status == 303)
                let goneReply = try await Self.open(server, Self.path(of: try Self.link(in: gone, "invitation")))
                #expect(goneReply.reply.status == 410 && goneReply.reply.body.contains("withdrawn"))
                let unknown = try await Self.open(server, "/console/invitation/" + String(repeating: "a", count: 43))
                #expect(unknown.reply.status == 404 && unknown.reply.headers[.contentType]?.hasPrefix("text/html") == true)
                // A form opened in time but sent after the week is refused too.
                let form = try await Self.open(server, late)
                #expect(form.reply.status == 200)
                clock.advance(by: TeamRules.invitationLifetime)
                let expired = try await C.post(
                    server, late, ["name": "Late", "password": C.password, "confirm": C.password, "csrf": form.token ?? ""],
                    cookie: "redeem_console_team_form=\(form.cookie ?? "")")
                #expect(expired.status == 410 && expired.body.contains("expired") && expired.body.contains("send it again"))
                #expect(try await server.deps.store.operators().count == 1)
                // The owner sends it again: a new link for a new week, the old one dead.
                let lateID = try #require(try await server.deps.store.openInvitations().first { $0.email == "late@example.com" }?.id)
                // A week idle ended the owner's session too: they sign in again.
                let later = try await C.signIn(server)
                let page = try await server.send(.get, "/console/team", key: nil, headers: Self.cookie(later))
                #expect(page.body.contains("expired"))
                let resent = try await Self.act(server, "/console/team/invitations/\(lateID)/resend", session: later)
                #expect(resent.status == 303 && resent.headers[.location] == "/console/team?notice=resent")
                #expect(await server.deps.teamMailer?.drain() == 1)
                let again = try #require(try smtp.received().last { $0.rcptTos == ["late@example.com"] })
                let fresh = Self.path(of: try Self.link(in: again, "invitation"))
                #expect(fresh != late)
                #expect(try await Self.open(server, late).reply.status == 404)
                let joined = try await Self.submit(server, fresh, ["name": "Late", "password": C.password, "confirm": C.password])
                #expect(joined.status == 303, "\(joined.body)")
                #expect(try await server.deps.store.operators().first { $0.email == "late@example.com" }?.role == .owner)
                let actions = try await server.deps.store.auditLog().map(\.action)
                #expect(actions.contains("team.invitation.revoke") && actions.contains("team.invitation.resend"))
            }
        }
    }

    @Test(arguments: TestDatabases.available)
    func ownersDisableAndTheSessionEndsAtOnceButNeverTheLastOwner(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let owner = try await C.owner(server)
            let helper = try await C.owner(server, email: "help@example.com", role: .support)
            let ownerSession = try await C.signIn(server)
            let helperSession = try await C.signIn(server, email: "help@example.com")
            // Support may not disable anyone.
            let forbidden = try await Self.act(server, "/console/team/operators/\(owner.id)/disable", ["confirm": "yes"], session: helperSession)
            #expect(forbidden.status == 403)
            // The owner may not disable themself, nor demote the last owner.
            let selfDisable = try await Self.act(server, "/console/team/operators/\(owner.id)/disable", ["confirm": "yes"], session: ownerSession)
            #expect(selfDisable.status == 409 && selfDisable.body.contains("yourself"))
            let demote = try await Self.act(server, "/console/team/operators/\(owner.id)/role", ["role": "support"], session: ownerSession)
            #expect(demote.status == 409 && demote.body.contains("last active owner"))
            let disabled = try await Self.act(server, "/console/team/operators/\(helper.id)/disable", ["confirm": "yes"], session: ownerSession)
            #expect(disabled.status == 303 && disabled.headers[.location] == "/console/team?notice=disabled")
            let after = try await server.send(.get, "/console/team", key: nil, headers: Self.cookie(helperSession))
            #expect(after.status == 303 && after.headers[.location] == "/console/sign-in")
            let form = try await C.form(server)
            let signIn = try await C.post(
                server, "/console/sign-in", ["email": "help@example.com", "password": C.password, "csrf": form.token],
                cookie: "redeem_console_form=\(form.cookie)")
            #expect(signIn.status == 403 && signIn.body.contains("This account is disabled"))
            let enabled = try await Self.act(server, "/console/team/operators/\(helper.id)/enable", session: ownerSession)
            #expect(enabled.status == 303)
            _ = try await C.signIn(server, email: "help@example.com")
            let promoted = try await Self.act(server, "/console/team/operators/\(helper.id)/role", ["role": "owner"], session: ownerSession)
            #expect(promoted.status == 303)
            #expect(try await server.deps.store.operators().first { $0.id == helper.id }?.role == .owner)
            // An owner clears another's lost authenticator; they enrol again.
            try await server.deps.store.startTwoFactorEnrolment(operatorID: helper.id, secret: "JBSWY3DPEHPK3PXP")
            let audit = AuditEntry(
                at: TestServer.start, actor: "test", action: "operator.two_factor.enable", objectType: "operator", objectID: helper.id, appID: nil)
            try await server.deps.store.enableTwoFactor(operatorID: helper.id, step: 1, now: TestServer.start, audit: audit)
            let cleared = try await Self.act(server, "/console/team/operators/\(helper.id)/reset-two-factor", session: ownerSession)
            #expect(cleared.status == 303 && cleared.headers[.location] == "/console/team?notice=two-factor")
            #expect(try await server.deps.store.operators().first { $0.id == helper.id }?.twoFactorEnabledAt == nil)
            let actions = try await server.deps.store.auditLog().map(\.action)
            for action in ["operator.disable", "operator.enable", "operator.role", "operator.two_factor.reset"] {
                #expect(actions.contains(action), "\(action)")
            }
        }
    }

    @Test(arguments: TestDatabases.available)
    func aResetLinkSetsANewPasswordOnceAndTheAnswerRevealsNoAccount(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                _ = try await C.owner(server)
                let oldSession = try await C.signIn(server)
                let signInPage = try await server.send(.get, "/console/sign-in", key: nil)
                #expect(signInPage.body.contains("href=\"/console/reset\"") && signInPage.body.contains("Forgot your password?"))
                let known = try await Self.submit(server, "/console/reset", ["email": "owner@example.com"])
                let unknown = try await Self.submit(server, "/console/reset", ["email": "nobody@example.com"])
                #expect(known.status == 200 && unknown.status == 200)
                func scrub(_ body: String, _ email: String) -> String {
                    body.replacing(/value="[^"]+"/, with: "").replacing(/nonce="[^"]+"/, with: "").replacingOccurrences(of: email, with: "")
                }
                #expect(scrub(known.body, "owner@example.com") == scrub(unknown.body, "nobody@example.com"))
                #expect(await server.deps.teamMailer?.drain() == 1)
                let mail = try #require(try smtp.received().first)
                #expect(mail.rcptTos == ["owner@example.com"])
                let path = Self.path(of: try Self.link(in: mail, "reset"))
                for _ in 0..<2 { #expect(try await Self.open(server, path).reply.status == 200) }
                let short = try await Self.submit(server, path, ["password": "short", "confirm": "short"])
                #expect(short.status == 422 && short.body.contains("at least 12"))
                let newPassword = "a much newer password"
                let done = try await Self.submit(server, path, ["password": newPassword, "confirm": newPassword])
                #expect(done.status == 303 && done.headers[.location] == "/console/sign-in?reset=done")
                let ended = try await server.send(.get, "/console/team", key: nil, headers: Self.cookie(oldSession))
                #expect(ended.status == 303, "the old session ended")
                let used = try await Self.open(server, path)
                #expect(used.reply.status == 410 && used.reply.body.contains("Send a new link"))
                let form = try await C.form(server)
                let old = try await C.post(
                    server, "/console/sign-in", ["email": "owner@example.com", "password": C.password, "csrf": form.token],
                    cookie: "redeem_console_form=\(form.cookie)")
                #expect(old.status == 401)
                _ = try await C.signIn(server, password: newPassword)
                let actions = try await server.deps.store.auditLog().map(\.action)
                #expect(actions.contains("operator.password_reset.request") && actions.contains("operator.password_reset.complete"))
            }
        }
    }

    @Test(arguments: TestDatabases.available)
    func resetRequestsAreRateLimitedByAddress(_ backend: TestBackend) async throws {
        var limits = RateLimits()
        limits.newLinkPerEmail = 2
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port), rateLimits: limits) { server in
                for expected in [200, 200, 429] {
                    let reply = try await Self.submit(server, "/console/reset", ["email": "someone@example.com"])
                    #expect(reply.status == expected)
                    if expected == 429 { #expect(reply.headers[.retryAfter] != nil && reply.body.contains("Too many tries")) }
                }
            }
        }
    }

    @Test(arguments: TestDatabases.available)
    func withoutEmailTheOwnerIsShownTheLinkOnce(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            _ = try await C.owner(server)
            let owner = try await C.signIn(server)
            let invited = try await Self.act(server, "/console/team/invitations", ["email": "solo@example.com", "role": "support"], session: owner)
            #expect(invited.status == 201 && invited.headers[.cacheControl] == "no-store")
            let link = String(try #require(invited.body.firstMatch(of: /https:\/\/pay\.example\.com\/console\/invitation\/[A-Za-z0-9_-]{43}/)).output)
            #expect(try await Self.invitationState(server, link: link) == .pending)
            let again = try await server.send(.get, "/console/team", key: nil, headers: Self.cookie(owner))
            #expect(!again.body.contains(link), "shown once")
            // The reset page says e-mail is off rather than offering a form that cannot work.
            let reset = try await Self.open(server, "/console/reset")
            #expect(reset.reply.status == 200 && reset.reply.body.contains("E-mail is off") && reset.token == nil)
        }
    }

    @Test(arguments: TestDatabases.available)
    func anInvitedOwnerEnrolsWhereTheServerRequiresTwoFactor(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, ownersNeedTwoFactor: true) { server in
            let owner = try await C.owner(server)
            let link = try await TeamService.invite(
                store: server.deps.store, email: "boss@example.com", role: .owner, publicURL: server.deps.publicURL, actor: "operator:\(owner.email)")
            let joined = try await Self.submit(server, Self.path(of: link), ["name": "Boss", "password": C.password, "confirm": C.password])
            #expect(joined.status == 303)
            let session = try #require(C.cookieValue(joined, "redeem_console"))
            let console = try await server.send(.get, "/console/team", key: nil, headers: Self.cookie(session))
            #expect(console.status == 303 && console.headers[.location] == "/console/account", "only enrolment is open")
        }
    }
}
