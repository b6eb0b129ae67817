import Foundation
import RedeemKit
import RedeemTestSupport
import Testing

/// RedeemKit against the real server: a sandbox purchase made through the checkout form,
/// redeemed from the success page's link.
// A hang guard, not a speed check: alone these take seconds, in the full suite on two cores over a minute.
@Suite(.timeLimit(.minutes(3)))
struct SandboxRedemptionTests {
    @Test(arguments: TestDatabases.available) func aSandboxPurchaseRedeemsAndUnlocksTheEntitlement(_ backend: TestBackend) async throws {
        try await TestShop.with(backend) { shop in
            try await shop.serveLive { baseURL in
                let link = try await SandboxBuyer(baseURL: baseURL, appID: shop.appID)
                    .buy("monthly", email: "buyer@example.com", scheme: shop.scheme)
                let alice = TestDevice(baseURL: baseURL, apiKey: shop.publicKey, appUserID: "alice")

                let result = try await alice.open(link)
                guard case .success(let info, let redemption) = result else {
                    Issue.record("expected success, got \(result)")
                    return
                }
                #expect(redemption.ownerAppUserID == "alice")
                #expect(redemption.productIdentifier == "monthly")
                #expect(redemption.purchaserEmail == "buyer@example.com")
                #expect(redemption.entitlements == ["pro"])
                let pro = try #require(info.activeEntitlements["pro"])
                #expect(pro.productIdentifier == "monthly")
                // A sandbox month lasts five minutes.
                let expiry = try #require(pro.expirationDate)
                #expect(expiry > Date() && expiry < Date().addingTimeInterval(6 * 60))

                // Afterwards: from RedeemKit's cache, and fetched again from the server.
                #expect(try await alice.sdk.customerInfo().activeEntitlementIDs == ["pro"])
                let fetched = try await alice.sdk.customerInfo(fetchPolicy: .fetchCurrent)
                #expect(fetched.activeEntitlementIDs == ["pro"])
                #expect(fetched.originalAppUserID == "alice")
            }
        }
    }

    @Test(arguments: TestDatabases.available) func theSameLinkAsAnotherUserBelongsToTheFirst(_ backend: TestBackend) async throws {
        try await TestShop.with(backend) { shop in
            try await shop.serveLive { baseURL in
                let link = try await SandboxBuyer(baseURL: baseURL, appID: shop.appID)
                    .buy("lifetime", email: "buyer@example.com", scheme: shop.scheme)
                let alice = TestDevice(baseURL: baseURL, apiKey: shop.publicKey, appUserID: "alice")
                let bob = TestDevice(baseURL: baseURL, apiKey: shop.publicKey, appUserID: "bob")

                #expect(try await alice.open(link).isSuccess)
                #expect(try await bob.open(link) == .purchaseBelongsToOtherUser)
                #expect(try await bob.sdk.customerInfo().activeEntitlementIDs.isEmpty)
                #expect(try await alice.sdk.customerInfo(fetchPolicy: .fetchCurrent).activeEntitlementIDs == ["pro"])
            }
        }
    }

    @Test(arguments: TestDatabases.available) func aTokenTheServerNeverIssuedIsInvalid(_ backend: TestBackend) async throws {
        try await TestShop.with(backend) { shop in
            try await shop.serveLive { baseURL in
                let token = (UUID().uuidString + UUID().uuidString).replacingOccurrences(of: "-", with: "").lowercased()
                let link = try #require(URL(string: "\(shop.scheme)://redeem_web_purchase?redemption_token=\(token)"))
                let alice = TestDevice(baseURL: baseURL, apiKey: shop.publicKey, appUserID: "alice")

                #expect(try await alice.open(link) == .invalidToken)
                #expect(try await alice.sdk.customerInfo().activeEntitlementIDs.isEmpty)
            }
        }
    }
}
