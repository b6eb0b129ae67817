import Foundation
import Testing

@testable import RedeemKit

@Suite("App user identity")
struct IdentityTests {
    static func isAnonymousID(_ id: String) -> Bool {
        guard id.hasPrefix("$RCAnonymousID:") else { return false }
        let hex = id.dropFirst("$RCAnonymousID:".count)
        return hex.count == 32 && hex.allSatisfy { "0123456789abcdef".contains($0) }
    }

    let offline = FakeTransport(HTTPResponse(statusCode: 500))

    @Test func generatesAndPersistsAnAnonymousID() {
        let storage = InMemoryStorage()
        let first = Fixture.redeem(transport: offline, appUserID: nil, storage: storage)
        #expect(Self.isAnonymousID(first.appUserID))
        #expect(first.isAnonymous)
        let second = Fixture.redeem(transport: offline, appUserID: nil, storage: storage)
        #expect(second.appUserID == first.appUserID)
        let other = Fixture.redeem(transport: offline, appUserID: nil, storage: InMemoryStorage())
        #expect(other.appUserID != first.appUserID)
    }

    @Test func persistsInADirectory() {
        let directory = Fixture.temporaryDirectory()
        let first = Fixture.redeem(transport: offline, appUserID: nil, storage: nil, directory: directory)
        let second = Fixture.redeem(transport: offline, appUserID: nil, storage: nil, directory: directory)
        #expect(second.appUserID == first.appUserID)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("redeem-settings.json").path))
    }

    @Test func aGivenIDWinsAndIsPersisted() {
        let storage = InMemoryStorage()
        _ = Fixture.redeem(transport: offline, appUserID: nil, storage: storage)
        let identified = Fixture.redeem(transport: offline, appUserID: "  jane  ", storage: storage)
        #expect(identified.appUserID == "jane")
        #expect(!identified.isAnonymous)
        #expect(Fixture.redeem(transport: offline, appUserID: nil, storage: storage).appUserID == "jane")
    }

    @Test func logInAndLogOutSwitchAndPersist() async throws {
        let storage = InMemoryStorage()
        let transport = FakeTransport(Fixture.customerInfoResponse())
        let redeem = Fixture.redeem(transport: transport, appUserID: nil, storage: storage)
        let anonymous = redeem.appUserID

        try await redeem.logIn("jane")
        #expect(redeem.appUserID == "jane")
        #expect(Fixture.redeem(transport: offline, appUserID: nil, storage: storage).appUserID == "jane")

        await redeem.logOut()
        #expect(Self.isAnonymousID(redeem.appUserID))
        #expect(redeem.appUserID != anonymous)
        #expect(Fixture.redeem(transport: offline, appUserID: nil, storage: storage).appUserID == redeem.appUserID)

        let previous = redeem.appUserID
        await redeem.logOut()
        #expect(redeem.appUserID != previous)
    }

    @Test func blankLogInIsRejected() async {
        let redeem = Fixture.redeem(transport: offline)
        await #expect(throws: RedeemError.invalidAppUserID) { try await redeem.logIn(" \n ") }
        #expect(redeem.appUserID == "user-1")
    }

    @Test func requestsUseTheCurrentUser() async throws {
        let transport = FakeTransport { request, _ in
            request.method == "POST" ? Fixture.redeemSuccess() : Fixture.customerInfoResponse()
        }
        let redeem = Fixture.redeem(transport: transport)
        _ = await redeem.redeemWebPurchase(Fixture.redemption)
        try await redeem.logIn("jane")
        _ = await redeem.redeemOfferCode("CODE")
        #expect(transport.bodies.map { $0["app_user_id"] } == ["user-1", "jane"])
        #expect(transport.requests.contains { $0.url.path == "/v1/subscribers/jane" })
    }
}
