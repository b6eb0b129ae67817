import RedeemMail
import RedeemTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct SMTPAuthTests {
    static let user = "mailer"
    static let password = "s3cret-Pa55"

    func options(_ mechanism: String? = nil) -> SMTPTestServer.Options {
        SMTPTestServer.Options(authUser: Self.user, authPassword: Self.password, authMechanism: mechanism)
    }

    @Test(arguments: ["PLAIN", "LOGIN"])
    func correctCredentialsAreAccepted(_ mechanism: String) async throws {
        try await SMTPTestServer.with(options(mechanism)) { server in
            let client = Fixtures.client(port: server.port, username: Self.user, password: Self.password)
            try await client.send(Fixtures.message())
            let mail = try #require(try server.received().first)
            #expect(mail.authMechanism == mechanism)
            #expect(mail.authLogin == Self.user)
            #expect(mail.rcptTos == ["buyer@example.com"])
        }
    }

    @Test func wrongPasswordIsAPermanentAuthenticationFailure() async throws {
        try await SMTPTestServer.with(options()) { server in
            let wrong = "not-the-Pa55word"
            let client = Fixtures.client(port: server.port, username: Self.user, password: wrong)
            let error = await #expect(throws: MailError.self) { try await client.send(Fixtures.message()) }
            #expect(error?.isAuthenticationFailure == true)
            #expect(error?.isTransient == false)
            #expect(error?.smtpCode == 535)
            #expect(error.map { !"\($0)".contains(wrong) } == true)
            #expect(!"\(client.configuration)".contains(wrong))
            let received = try server.received()
            #expect(received.isEmpty)
        }
    }

    @Test func missingCredentialsAreRejectedPermanently() async throws {
        try await SMTPTestServer.with(options()) { server in
            let error = await #expect(throws: MailError.self) {
                try await Fixtures.client(port: server.port).send(Fixtures.message())
            }
            #expect(error?.isTransient == false)
            #expect(error?.smtpCode == 530)
            let received = try server.received()
            #expect(received.isEmpty)
        }
    }
}
