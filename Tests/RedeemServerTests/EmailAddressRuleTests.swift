import RedeemCore
import RedeemMail
import Testing

/// Core's one rule for an e-mail address (`Formats.isEmail`, used wherever one is typed) takes only what the mail
/// header (`MailAddress`) can carry, so an address accepted at a checkout, the portal or a support form is one Redeem
/// can send to, never a receipt that fails later or a server error.
@Suite struct EmailAddressRuleTests {
    @Test func everyAcceptedAddressCanBeMailed() {
        let accepted = ["ana@example.com", "a.b+tag@sub.example.co.uk", "o'brien@example.ie", "x_y-z@example.travel", "Buyer@Example.COM"]
        for address in accepted {
            #expect(Formats.isEmail(address), "\(address)")
            #expect((try? MailAddress(address)) != nil, "\(address)")
        }
        let refused = [
            "josé@example.com", "jo(se)@example.com", "a\"b@example.com", "a;b@example.com", "a[b]@example.com", "a b@example.com",
            "a@b", "a@@example.com", "@example.com", "a@example..com", "a@.example.com", "<a@example.com>", "a,b@example.com",
            "a@example.com\r\nBcc: x@example.com",
        ]
        for address in refused { #expect(!Formats.isEmail(address), "\(address)") }
    }
}
