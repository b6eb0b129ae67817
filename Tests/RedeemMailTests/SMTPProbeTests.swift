import RedeemMail
import RedeemTestSupport
import Testing

/// `SMTPClient.probe`: connects and logs in as a send would, sends nothing, and names what is wrong.
@Suite(.timeLimit(.minutes(1))) struct SMTPProbeTests {
    @Test func aReachableServerPassesAndReceivesNothing() async throws {
        try await SMTPTestServer.with { server in
            try await Fixtures.client(port: server.port, security: .none).probe()
            #expect(try server.received().isEmpty)
        }
    }

    @Test func startTLSAgainstAServerWithoutTLSFails() async throws {
        // The README's `smtp://host:port` means STARTTLS, required: a plain local server is refused at the probe.
        _ = try await SMTPTestServer.with { server in
            await #expect(throws: MailError.self) { try await Fixtures.client(port: server.port, security: .startTLS).probe() }
        }
    }

    @Test func aWrongPasswordFails() async throws {
        try await SMTPTestServer.with(.init(authUser: "mailer", authPassword: "right", tls: "starttls")) { server in
            let client = Fixtures.client(
                port: server.port, security: .startTLS, username: "mailer", password: "wrong", caCertificatesPath: server.certificatePath)
            let error = await #expect(throws: MailError.self) { try await client.probe() }
            let right = Fixtures.client(
                port: server.port, security: .startTLS, username: "mailer", password: "right", caCertificatesPath: server.certificatePath)
            try await right.probe()  // So the failure above was the login, which the probe does.
            #expect(error.map { "\($0)".contains("wrong") } == false, "the password never appears in the error")
        }
    }

    @Test func nobodyListeningFails() async throws {
        let port = try SMTPTestServer.freePort()
        await #expect(throws: MailError.self) { try await Fixtures.client(port: port, security: .none).probe() }
    }
}
