import Foundation
import RedeemKit
import RedeemServer
import RedeemTestSupport
import Testing

import class RedeemCore.ManualClock

/// An expired link: the server e-mails a new one (to a real SMTP server on loopback) and that one redeems.
// A hang guard, not a speed check: alone these take seconds, in the full suite on two cores over a minute.
@Suite(.timeLimit(.minutes(3)))
struct ExpiredLinkTests {
    @Test(arguments: TestDatabases.available) func anExpiredLinkIsResentAndTheNewLinkRedeems(_ backend: TestBackend) async throws {
        let clock = ManualClock(Date())
        try await SMTPTestServer.with { smtp in
            let mail = try MailSettings(smtpURL: "smtp://127.0.0.1:\(smtp.port)?security=none", from: "receipts@redeem.test")
            try await TestShop.with(backend, clock: clock, mail: mail) { shop in
                try await shop.serveLive { baseURL in
                    let old = try await SandboxBuyer(baseURL: baseURL, appID: shop.appID)
                        .buy("lifetime", email: "john@example.com", scheme: shop.scheme)
                    #expect(await shop.deps.mailer?.drain() == 1, "the receipt")
                    let alice = TestDevice(baseURL: baseURL, apiKey: shop.publicKey, appUserID: "alice")

                    // Links live 60 minutes.
                    clock.advance(by: 61 * 60)
                    #expect(try await alice.open(old) == .expired(obfuscatedEmail: "j***@e***.com", resent: true))

                    #expect(await shop.deps.mailer?.drain() == 1, "the new link")
                    let message = try #require(try smtp.received().last(where: { $0.subject.contains("new") }), "no new-link e-mail")
                    #expect(message.rcptTos == ["john@example.com"])
                    let text = try #require(message.body("text/plain"))
                    let https = try #require(text.firstMatch(of: /https:\/\/pay\.example\.com\/r\/[A-Za-z0-9_-]+/), "no link in:\n\(text)")
                    let fresh = try #require(URL(string: String(https.output)))

                    let result = try await alice.open(fresh)
                    guard case .success(let info, let redemption) = result else {
                        Issue.record("expected success, got \(result)")
                        return
                    }
                    #expect(redemption.productIdentifier == "lifetime")
                    #expect(info.activeEntitlements["pro"]?.isLifetime == true)
                    #expect(try await alice.sdk.customerInfo().activeEntitlementIDs == ["pro"])
                }
            }
        }
    }
}
