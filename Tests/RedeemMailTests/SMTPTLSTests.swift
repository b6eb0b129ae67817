import RedeemMail
import RedeemTestSupport
import Testing

/// TLS against aiosmtpd with a self-signed certificate made per test (needs the `openssl` CLI).
@Suite(.timeLimit(.minutes(1))) struct SMTPTLSTests {
    @Test func startTLSUpgradesTheConnection() async throws {
        try await SMTPTestServer.with(.init(tls: "starttls")) { server in
            let client = Fixtures.client(port: server.port, security: .startTLS, caCertificatesPath: server.certificatePath)
            try await client.send(Fixtures.message())
            let mail = try #require(try server.received().first)
            #expect(mail.tls)
            #expect(mail.rcptTos == ["buyer@example.com"])
        }
    }

    @Test func implicitTLSDelivers() async throws {
        try await SMTPTestServer.with(.init(tls: "implicit")) { server in
            let client = Fixtures.client(port: server.port, security: .tls, caCertificatesPath: server.certificatePath)
            try await client.send(Fixtures.message())
            let mail = try #require(try server.received().first)
            #expect(mail.tls)
        }
    }

    @Test func untrustedCertificateFailsPermanently() async throws {
        try await SMTPTestServer.with(.init(tls: "starttls")) { server in
            let error = await #expect(throws: MailError.self) {
                try await Fixtures.client(port: server.port, security: .startTLS).send(Fixtures.message())
            }
            #expect(error?.isTransient == false)
            let received = try server.received()
            #expect(received.isEmpty)
        }
    }
}
