import Foundation
import RedeemCore
import Testing

@Suite struct RedemptionLinkTests {
    @Test(arguments: [
        ("john@example.com", "j***@e***.com"),
        ("t@r.com", "t***@r***.com"),
        ("someone.long@mail.example.co.uk", "s***@m***.uk"),
        ("nodomain", "n***"),
        ("@example.com", "***@e***.com"),
        ("a@localhost", "a***@l***"),
    ])
    func masksWithFixedRuns(_ email: String, masked: String) {
        #expect(EmailMasking.mask(email) == masked)
    }

    @Test func masksNeverRevealLengths() {
        #expect(EmailMasking.mask("a@b.com").count == EmailMasking.mask("abcdefgh@bcdefghij.com").count)
    }

    @Test func linksHaveBothFormsAndStrongTokens() {
        let token = RedemptionLink.newToken()
        #expect(token.count == 43)
        #expect(RedemptionLink.isWellFormed(token))
        let link = RedemptionLink(
            token: token, scheme: "rdm-0123456789", publicURL: URL(string: "https://pay.example.com/")!, expiresAt: .distantFuture)
        #expect(link.customSchemeURL == "rdm-0123456789://redeem_web_purchase?redemption_token=\(token)")
        #expect(link.httpsURL == "https://pay.example.com/r/\(token)")
        #expect(RedemptionLink.newToken() != token)
    }

    @Test(arguments: ["", "short", "has space in it padding", "semi;colon_________", String(repeating: "a", count: 129), "ünïcödé_________________"])
    func rejectsMalformedTokens(_ token: String) {
        #expect(!RedemptionLink.isWellFormed(token))
    }
}
