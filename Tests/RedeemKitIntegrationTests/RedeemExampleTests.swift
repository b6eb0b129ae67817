import Foundation
import RedeemTestSupport
import Testing

/// The `redeem-example` command-line app, run as a subprocess against the in-process server.
// A hang guard, not a speed check: alone these take seconds, in the full suite on two cores over a minute.
@Suite(.timeLimit(.minutes(3)))
struct RedeemExampleTests {
    @Test(arguments: TestDatabases.available) func redeemsALinkAndExplainsRefusals(_ backend: TestBackend) async throws {
        try await TestShop.with(backend) { shop in
            try await shop.serveLive { baseURL in
                let link = try await SandboxBuyer(baseURL: baseURL, appID: shop.appID)
                    .buy("monthly", email: "cli@example.com", scheme: shop.scheme)
                let storage = FileManager.default.temporaryDirectory.appendingPathComponent("redeem-example-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: storage) }
                func example(_ user: String, _ link: String) async throws -> ExampleBinary.Run {
                    try await ExampleBinary.run([
                        "--base-url", baseURL.absoluteString, "--api-key", shop.publicKey,
                        "--app-user-id", user, "--storage", storage.path, link,
                    ])
                }

                let redeemed = try await example("cli-user", link.absoluteString)
                #expect(redeemed.status == 0, "\(redeemed)")
                #expect(redeemed.stdout.contains("Redeemed: monthly for cli-user, unlocks pro, bought by cli@example.com."), "\(redeemed)")
                #expect(redeemed.stdout.contains("Active entitlements:\n  pro: until "), "\(redeemed)")

                let taken = try await example("someone-else", link.absoluteString)
                #expect(taken.status == 1, "\(taken)")
                #expect(taken.stdout.contains("This link belongs to another account."), "\(taken)")
                #expect(taken.stdout.contains("No active entitlements."), "\(taken)")

                let notALink = try await example("cli-user", "https://elsewhere.example.com/r/abc")
                #expect(notALink.status == 1, "\(notALink)")
                #expect(notALink.stdout.contains("This is not a redemption link"), "\(notALink)")
            }
        }
    }
}
