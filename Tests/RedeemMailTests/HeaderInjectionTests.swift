import RedeemMail
import Testing

@Suite struct HeaderInjectionTests {
    @Test(arguments: ["Hi\r\nBcc: evil@example.com", "Hi\nBcc: evil@example.com", "Hi\rthere", "nul\0"])
    func subjectWithLineBreakIsRejected(_ subject: String) {
        let error = #expect(throws: MailError.self) {
            try MailMessage(to: [Fixtures.address("a@example.com")], subject: subject, text: "x")
        }
        #expect(error?.isInvalidMessage == true)
        #expect(error?.isTransient == false)
    }

    @Test func displayNameWithLineBreakIsRejected() {
        let error = #expect(throws: MailError.self) {
            try MailAddress("a@example.com", name: "Eve\r\nBcc: evil@example.com")
        }
        #expect(error?.isInvalidMessage == true)
    }

    @Test(arguments: [
        "a@example.com\r\nBcc: evil@example.com", "a@example.com>\nX: y", "no-at-sign", "two@@example.com",
        "@example.com", "a@", "a b@example.com", "a@exa mple.com", "a,b@example.com", "a@example..com",
        "zoë@example.com",
    ])
    func malformedAddressIsRejected(_ address: String) {
        let error = #expect(throws: MailError.self) { try MailAddress(address) }
        #expect(error?.isInvalidMessage == true)
    }

    @Test func plainAddressesAreAccepted() throws {
        let address = try MailAddress("first.last+tag@sub.example.com", name: "Zoë")
        #expect(address.domain == "sub.example.com")
    }

    @Test func messageWithoutRecipientsIsRejected() {
        let error = #expect(throws: MailError.self) { try MailMessage(to: [], subject: "s", text: "t") }
        #expect(error?.isInvalidMessage == true)
    }

    @Test func sendingWithoutAnySenderFails() async throws {
        let message = try MailMessage(to: [Fixtures.address("a@example.com")], subject: "s", text: "t")
        let error = await #expect(throws: MailError.self) { try await Fixtures.client(port: 1).send(message) }
        #expect(error?.isInvalidMessage == true)
        #expect(error?.isTransient == false)
    }
}
