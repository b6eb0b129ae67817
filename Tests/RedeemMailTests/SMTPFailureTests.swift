import Foundation
import RedeemMail
import RedeemTestSupport
import Testing

/// Failures an outbox must tell apart: retry later (transient) or give up.
@Suite(.timeLimit(.minutes(1))) struct SMTPFailureTests {
    @Test func connectionRefusedIsTransient() async throws {
        let closed = try LoopbackSocket(listening: false)
        defer { closed.close() }
        let error = await #expect(throws: MailError.self) {
            try await Fixtures.client(port: closed.port).send(Fixtures.message())
        }
        #expect(error?.isTransient == true)
        #expect(error?.smtpCode == nil)
    }

    @Test func silentServerTimesOutTransiently() async throws {
        let silent = try LoopbackSocket(listening: true)
        defer { silent.close() }
        let error = await #expect(throws: MailError.self) {
            try await Fixtures.client(port: silent.port, timeout: .milliseconds(700)).send(Fixtures.message())
        }
        // A timeout, not a hang: the suite's time limit is the hang guard.
        #expect(error?.isTransient == true)
        #expect(error.map { "\($0)".contains("timed out") } == true)
    }

    @Test func cancellingTheTaskAbortsTheTransfer() async throws {
        let silent = try LoopbackSocket(listening: true)
        defer { silent.close() }
        let client = Fixtures.client(port: silent.port, timeout: .seconds(600))
        let task = Task { try await client.send(Fixtures.message()) }
        // Cancelled once the transfer is under way (connected, waiting for a greeting that never comes). Without the
        // cancellation it would wait 600 s and fail as a timeout, which the suite's time limit also catches.
        let connection = await silent.acceptedConnection()
        defer { if connection >= 0 { close(connection) } }
        task.cancel()
        let error = await #expect(throws: MailError.self) { try await task.value }
        #expect(error?.isCancelled == true)
        #expect(error?.isTransient == true)
    }

    @Test func permanentRecipientRejectionIsNotTransient() async throws {
        try await SMTPTestServer.with { server in
            let error = await #expect(throws: MailError.self) {
                try await Fixtures.client(port: server.port).send(Fixtures.message(to: ["ok@example.com", "reject@example.com"]))
            }
            #expect(error?.smtpCode == 550)
            #expect(error?.isTransient == false)
            let received = try server.received()
            #expect(received.isEmpty)
        }
    }

    @Test func temporaryRecipientRejectionIsTransient() async throws {
        try await SMTPTestServer.with { server in
            let error = await #expect(throws: MailError.self) {
                try await Fixtures.client(port: server.port).send(Fixtures.message(to: ["tempfail@example.com"]))
            }
            #expect(error?.smtpCode == 451)
            #expect(error?.isTransient == true)
        }
    }

    @Test func requiredSTARTTLSMissingIsNotTransient() async throws {
        try await SMTPTestServer.with { server in
            let error = await #expect(throws: MailError.self) {
                try await Fixtures.client(port: server.port, security: .startTLS).send(Fixtures.message())
            }
            #expect(error?.isTransient == false)
            #expect(error.map { "\($0)".contains("STARTTLS") } == true)
            let received = try server.received()
            #expect(received.isEmpty)
        }
    }

    @Test(arguments: ["evil/host", "", "a b", "host?x"])
    func badHostIsAConfigurationError(_ host: String) async throws {
        let client = SMTPClient(configuration: SMTPConfiguration(host: host, port: 2525, security: .none))
        let error = await #expect(throws: MailError.self) { try await client.send(Fixtures.message()) }
        #expect(error?.isTransient == false)
    }
}
