import Foundation
import HTTPTypes
import RedeemCore
import RedeemServer
import RedeemTestSupport
import Testing

/// The Customer Center's support form (`POST /v1/customercenter/support/create-ticket`) as both SDKs send it: the
/// buyer's message e-mailed to the app's support address through a real SMTP server on loopback, and nothing stored.
@Suite struct SupportTicketTests {
    static let path = "/v1/customercenter/support/create-ticket"

    static func ticket(user: String = "alice", email: String = "ana.buyer@example.com", _ description: String) -> String {
        let body = ["app_user_id": user, "customer_email": email, "issue_description": description]
        return String(decoding: try! JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }

    @Test(arguments: TestDatabases.available)
    func aTicketIsEmailedToTheSupportAddressAndNotKept(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                let app = try await server.createApp(#"{"name": "Café Lumen", "support_email": "help@lumen.example"}"#)
                let request = try RevenueCatFixtures.text("sdk/create_ticket.request.json")
                let reply = try await server.send(.post, Self.path, key: app.publicProduction, json: request)
                #expect(reply.status == 200 && reply.body == #"{"sent":true}"#, "\(reply.body)")

                let mail = try #require(try smtp.received().first)
                #expect(mail.rcptTos == ["help@lumen.example"] && mail.subject == "Support request from Café Lumen")
                // Support answers the buyer by replying; the sender is the server's, named for the app.
                #expect(mail.replyTo == [.init(name: "", address: "ana.buyer@example.com")])
                #expect(mail.from.map(\.name) == ["Café Lumen Customer Center"] && mail.from.map(\.address) == ["receipts@redeem.test"])
                let text = try #require(mail.body("text/plain"))
                #expect(text.contains("I bought the yearly plan on the website but the app still shows the paywall."))
                #expect(text.contains("App user ID: $RCAnonymousID:8b4e2cbb6c1c4a1f9c0d2f1b3a6e7d90"))
                // Nothing of it is stored: neither the message nor the address is in any table.
                let texts = try await RevenueCatRESTTests.everyText(server)
                #expect(!texts.contains { $0.contains("yearly plan on the website") || $0.contains("ana.buyer@example.com") })
            }
        }
    }

    /// Refused with what is wrong, and nothing sent: a malformed address or message, a bad app user ID, a wrong key,
    /// an app without a support address; and a buyer sending too many.
    @Test(arguments: TestDatabases.available)
    func badTicketsAreRefusedAndTooManyAreLimited(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port), rateLimits: RateLimits()) { server in
                let app = try await server.createApp(#"{"name": "Lumen", "support_email": "help@lumen.example"}"#)
                let other = try await server.createApp(#"{"name": "Quiet"}"#)
                let key = app.publicProduction
                for (body, status, field) in [
                    (Self.ticket(email: "not-an-address", "Help"), 422, "customer_email"),
                    // Well-formed enough for a form, not for a mail header: refused too, never a server error.
                    (Self.ticket(email: "jo(se)@example.com", "Help"), 422, "customer_email"),
                    (Self.ticket(email: "josé@example.com", "Help"), 422, "customer_email"),
                    (Self.ticket("   \n "), 422, "issue_description"),
                    (Self.ticket(String(repeating: "a", count: 2001)), 422, "issue_description"),
                ] {
                    let refused = try await server.send(.post, Self.path, key: key, json: body)
                    let named = try refused.string("field")
                    #expect(refused.status == status && named == field, "\(refused.body)")
                }
                #expect(try await server.send(.post, Self.path, key: key, json: Self.ticket(user: "null", "Help")).status == 400)
                #expect(try await server.send(.post, Self.path, key: key, json: #"{"app_user_id": "alice"}"#).status == 400)
                #expect(try await server.send(.post, Self.path, key: nil, json: Self.ticket("Help")).status == 401)
                #expect(try await server.send(.post, Self.path, key: server.adminKey, json: Self.ticket("Help")).status == 403)
                let quiet = try await server.send(.post, Self.path, key: other.publicProduction, json: Self.ticket("Help"))
                #expect(quiet.status == 409 && quiet.body.contains("no support address"), "\(quiet.body)")
                #expect(try smtp.received().isEmpty)

                // The default limits: three a minute per app user (as portal sign-in links per address); then 429 with
                // `Retry-After`, while another user still gets through.
                for number in 1...3 {
                    #expect(try await server.send(.post, Self.path, key: key, json: Self.ticket("Message \(number)")).status == 200)
                }
                let limited = try await server.send(.post, Self.path, key: key, json: Self.ticket("Message 4"))
                #expect(limited.status == 429 && limited.headers[.retryAfter] != nil)
                #expect(try await server.send(.post, Self.path, key: key, json: Self.ticket(user: "bob", "From Bob")).status == 200)
                #expect(try smtp.received().count == 4)
            }
        }
    }

    /// With the mail server unreachable the answer says so (503), which both SDKs show as a failure to send: the buyer
    /// sends it again, and nothing was kept to go later.
    @Test(arguments: TestDatabases.available)
    func anUnreachableMailServerIsAFailureTheBuyerSees(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: try SMTPTestServer.freePort())) { server in
            let app = try await server.createApp(#"{"name": "Lumen", "support_email": "help@lumen.example"}"#)
            let reply = try await server.send(.post, Self.path, key: app.publicProduction, json: Self.ticket("Help"))
            #expect(reply.status == 503 && reply.code == 7503, "\(reply.body)")
        }
    }
}
