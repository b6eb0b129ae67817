import Foundation
import HTTPTypes
import HummingbirdOTP
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// Two-factor sign-in: an operator enrols an authenticator app from the key the page shows; signing in then needs a
/// code, which works once; owners can be required to enrol.
@Suite struct TwoFactorTests {
    /// What an authenticator app computes from the key the page shows (RFC 4648 base32, then TOTP as the app does).
    static func code(typedKey: String, at date: Date) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bits = 0
        var value = 0
        var bytes: [UInt8] = []
        for character in typedKey where character != " " {
            value = (value << 5) | (alphabet.firstIndex(of: character) ?? 0)
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8((value >> (bits - 8)) & 0xff))
                bits -= 8
            }
        }
        return String(format: "%06d", TOTP(secret: String(decoding: bytes, as: UTF8.self)).compute(date: date))
    }

    static func csrf(_ reply: TestServer.Reply) throws -> String {
        String(try #require(reply.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1))
    }

    /// Enrols the signed-in operator; returns the key the page showed.
    static func enrol(_ server: TestServer, session: String) async throws -> String {
        let cookie = "redeem_console=\(session)"
        let account = try await server.send(.get, "/console/account", key: nil, headers: [.cookie: cookie])
        #expect(account.status == 200)
        let started = try await ConsoleTests.post(server, "/console/account/two-factor/start", ["csrf": try csrf(account)], cookie: cookie)
        #expect(started.status == 200)
        #expect(started.body.contains("<svg"), "the QR code")
        let key = String(try #require(started.body.firstMatch(of: /id="typed-key">([A-Z2-7 ]+)</)?.1))
        let wrong = try await ConsoleTests.post(
            server, "/console/account/two-factor/confirm", ["csrf": try csrf(account), "code": "000000"], cookie: cookie)
        #expect(wrong.status == 401)
        let confirmed = try await ConsoleTests.post(
            server, "/console/account/two-factor/confirm", ["csrf": try csrf(account), "code": code(typedKey: key, at: server.deps.clock.now())],
            cookie: cookie)
        #expect(confirmed.status == 303, "\(confirmed.body)")
        return key
    }

    @Test(arguments: TestDatabases.available)
    func signingInNeedsTheCodeOnceEnrolledAndACodeWorksOnce(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createApp()
            _ = try await ConsoleTests.owner(server, email: "help@example.com", role: .support)
            let key = try await Self.enrol(server, session: try await ConsoleTests.signIn(server, email: "help@example.com"))
            #expect(try await server.deps.store.operators().first?.twoFactorEnabledAt == TestServer.start)

            // The password alone now opens nothing.
            clock.advance(by: 60)
            let form = try await ConsoleTests.form(server)
            let password = try await ConsoleTests.post(
                server, "/console/sign-in", ["email": "help@example.com", "password": ConsoleTests.password, "csrf": form.token],
                cookie: "redeem_console_form=\(form.cookie)")
            #expect(password.headers[.location] == "/console/sign-in/code")
            let session = try #require(ConsoleTests.cookieValue(password, "redeem_console"))
            let cookie = "redeem_console=\(session)"
            let blocked = try await server.send(.get, "/console/apps/\(app.id)", key: nil, headers: [.cookie: cookie])
            #expect(blocked.status == 303)
            #expect(blocked.headers[.location] == "/console/sign-in/code")
            let step = try await server.send(.get, "/console/sign-in/code", key: nil, headers: [.cookie: cookie])
            #expect(step.status == 200)
            #expect(step.body.contains("autocomplete=\"one-time-code\""))
            let wrong = try await ConsoleTests.post(
                server, "/console/sign-in/code", ["csrf": try Self.csrf(step), "code": "123 456"], cookie: cookie)
            #expect(wrong.status == 401)
            #expect(try await ConsoleTests.post(server, "/console/sign-in/code", ["code": "123456"], cookie: cookie).status == 403, "no form token")
            let code = Self.code(typedKey: key, at: clock.now())
            let right = try await ConsoleTests.post(server, "/console/sign-in/code", ["csrf": try Self.csrf(step), "code": code], cookie: cookie)
            #expect(right.status == 303)
            #expect(right.headers[.location] == "/console")
            #expect(try await server.send(.get, "/console/apps/\(app.id)", key: nil, headers: [.cookie: cookie]).status == 200)

            // The same code in another sign-in is refused: each code works once.
            let again = try await ConsoleTests.form(server)
            let second = try await ConsoleTests.post(
                server, "/console/sign-in", ["email": "help@example.com", "password": ConsoleTests.password, "csrf": again.token],
                cookie: "redeem_console_form=\(again.cookie)")
            let secondCookie = "redeem_console=\(try #require(ConsoleTests.cookieValue(second, "redeem_console")))"
            let secondStep = try await server.send(.get, "/console/sign-in/code", key: nil, headers: [.cookie: secondCookie])
            let replay = try await ConsoleTests.post(
                server, "/console/sign-in/code", ["csrf": try Self.csrf(secondStep), "code": code], cookie: secondCookie)
            #expect(replay.status == 401)
            // A waiting sign-in lapses after five minutes.
            clock.advance(by: OperatorSessionRules.codeWindow)
            let late = try await ConsoleTests.post(
                server, "/console/sign-in/code", ["csrf": try Self.csrf(secondStep), "code": Self.code(typedKey: key, at: clock.now())],
                cookie: secondCookie)
            #expect(late.headers[.location] == "/console/sign-in")

            // Turning it off needs a current code, and is audited; so is a reset from the CLI.
            clock.advance(by: 60)
            let account = try await server.send(.get, "/console/account", key: nil, headers: [.cookie: cookie])
            let off = try await ConsoleTests.post(
                server, "/console/account/two-factor/disable", ["csrf": try Self.csrf(account), "code": Self.code(typedKey: key, at: clock.now())],
                cookie: cookie)
            #expect(off.status == 303)
            #expect(try await server.deps.store.operators().first?.twoFactorEnabledAt == nil)
            let actions = try await server.deps.store.auditLog(appID: nil, limit: 10).map(\.action)
            #expect(Set(actions).isSuperset(of: ["operator.two_factor.enable", "operator.two_factor.disable"]))
        }
    }

    @Test(arguments: TestDatabases.available)
    func ownersMustEnrolWhenTheInstanceRequiresIt(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, ownersNeedTwoFactor: true) { server in
            let app = try await server.createApp()
            _ = try await ConsoleTests.owner(server)
            _ = try await ConsoleTests.owner(server, email: "help@example.com", role: .support)
            let support = try await ConsoleTests.signIn(server, email: "help@example.com")
            let supportPage = try await server.send(.get, "/console/apps/\(app.id)", key: nil, headers: [.cookie: "redeem_console=\(support)"])
            #expect(supportPage.status == 200, "support operators are not required to enrol")
            let owner = try await ConsoleTests.signIn(server)
            let cookie = "redeem_console=\(owner)"
            let sent = try await server.send(.get, "/console/apps/\(app.id)", key: nil, headers: [.cookie: cookie])
            #expect(sent.headers[.location] == "/console/account")
            let account = try await server.send(.get, "/console/account", key: nil, headers: [.cookie: cookie])
            #expect(account.body.contains("requires owners to sign in with an authenticator app"))
            let key = try await Self.enrol(server, session: owner)
            #expect(try await server.send(.get, "/console/apps/\(app.id)", key: nil, headers: [.cookie: cookie]).status == 200)
            let enrolled = try await server.send(.get, "/console/account", key: nil, headers: [.cookie: cookie])
            #expect(!enrolled.body.contains("Turn off"), "owners may not turn it off here")
            let refused = try await ConsoleTests.post(
                server, "/console/account/two-factor/disable",
                ["csrf": try Self.csrf(enrolled), "code": Self.code(typedKey: key, at: server.deps.clock.now())], cookie: cookie)
            #expect(refused.status == 403)
            try await OperatorService(store: server.deps.store, clock: server.deps.clock, cost: 4).resetTwoFactor(
                email: "owner@example.com", actor: "cli")
            #expect(try await server.deps.store.operators().first { $0.role == .owner }?.twoFactorEnabledAt == nil)
        }
    }
}
