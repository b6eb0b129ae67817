import Foundation
import Testing

@testable import RedeemKit

@Suite("customerInfoStream")
struct CustomerInfoStreamTests {
    /// Routes by request: GETs and POSTs each answered by their own closure.
    static func transport(
        get: @escaping @Sendable (Int) throws -> HTTPResponse,
        post: @escaping @Sendable (HTTPRequest) -> HTTPResponse = { _ in Fixture.redeemSuccess() }
    ) -> FakeTransport {
        let gets = Locked(0)
        return FakeTransport { request, _ in
            if request.method == "POST" { return post(request) }
            let index = gets.withLock { value in
                defer { value += 1 }
                return value
            }
            return try get(index)
        }
    }

    @Test func emitsAfterRedemptionAndRefresh() async throws {
        let clock = TestClock()
        let redeem = Fixture.redeem(
            transport: Self.transport(get: { _ in
                Fixture.customerInfoResponse(
                    requestDate: clock.now(),
                    entitlements: [
                        .init(id: "pro", expires: Fixture.requestDate + 90 * Fixture.day),
                        .init(id: "extra", product: "extra", expires: nil),
                    ])
            }),
            clock: clock
        )
        var stream = redeem.customerInfoStream.makeAsyncIterator()

        _ = await redeem.redeemWebPurchase(Fixture.redemption)
        #expect(await stream.next()?.activeEntitlementIDs == ["pro"])

        clock.advance(by: 2 * Fixture.day)
        _ = try await redeem.customerInfo()
        #expect(await stream.next()?.activeEntitlementIDs == ["pro", "extra"])
    }

    @Test func startsWithTheCachedValue() async throws {
        let directory = Fixture.temporaryDirectory()
        let storage = InMemoryStorage()
        _ = try await Fixture.redeem(
            transport: FakeTransport(Fixture.customerInfoResponse()), storage: storage, directory: directory
        ).customerInfo()

        let redeem = Fixture.redeem(transport: FakeTransport(HTTPResponse(statusCode: 500)), storage: storage, directory: directory)
        var stream = redeem.customerInfoStream.makeAsyncIterator()
        #expect(await stream.next()?.activeEntitlementIDs == ["pro"])
    }

    @Test func failedAndEmptyRefreshesDoNotEmit() async throws {
        let clock = TestClock()
        let transport = Self.transport(get: { index in
            switch index {
            case 0: return Fixture.customerInfoResponse(requestDate: clock.now())
            case 1: throw TransportFailure()
            case 2: return Fixture.customerInfoResponse(requestDate: clock.now(), entitlements: [])
            default: return Fixture.customerInfoResponse(requestDate: clock.now(), entitlements: [.init(id: "last", expires: nil)])
            }
        })
        let redeem = Fixture.redeem(transport: transport, clock: clock, retryPolicy: .none)
        var stream = redeem.customerInfoStream.makeAsyncIterator()

        _ = try await redeem.customerInfo()
        #expect(await stream.next()?.activeEntitlementIDs == ["pro"])
        clock.advance(by: 2 * Fixture.day)
        _ = try await redeem.customerInfo()  // fails: cache served, nothing emitted
        _ = try await redeem.customerInfo()  // empty: cache kept, nothing emitted
        _ = try await redeem.customerInfo()  // real change
        #expect(await stream.next()?.activeEntitlementIDs == ["last"])
        #expect(transport.count == 4)
    }

    @Test func emitsOnUserSwitch() async throws {
        let transport = FakeTransport { request, _ in
            let isUser2 = request.url.path.hasSuffix("user-2")
            return Fixture.customerInfoResponse(entitlements: isUser2 ? [.init(id: "user2_pro", expires: nil)] : [])
        }
        let redeem = Fixture.redeem(transport: transport)
        var stream = redeem.customerInfoStream.makeAsyncIterator()

        let loggedIn = try await redeem.logIn("user-2")
        #expect(loggedIn?.activeEntitlementIDs == ["user2_pro"])
        #expect(await stream.next()?.activeEntitlementIDs == ["user2_pro"])

        let loggedOut = await redeem.logOut()
        #expect(loggedOut?.entitlements.isEmpty == true)
        #expect(await stream.next()?.entitlements.isEmpty == true)

        // Back to a user with a fresh cache: emitted from the cache, no request.
        let before = transport.count
        try await redeem.logIn("user-2")
        #expect(await stream.next()?.activeEntitlementIDs == ["user2_pro"])
        #expect(transport.count == before)
    }

    @Test func redemptionsForAFormerUserAreNotEmitted() async throws {
        let arrived = Gate()
        let release = Gate()
        let transport = FakeTransport { request, _ in
            if request.url.path.hasSuffix("redeem_purchase") {
                await arrived.open()
                await release.wait()
                return Fixture.redeemSuccess()
            }
            return Fixture.customerInfoResponse(entitlements: [.init(id: "other", expires: nil)])
        }
        let redeem = Fixture.redeem(transport: transport)
        var stream = redeem.customerInfoStream.makeAsyncIterator()
        let pending = Task { await redeem.redeemWebPurchase(Fixture.redemption) }
        await arrived.wait()
        try await redeem.logIn("user-2")
        await release.open()
        _ = await pending.value
        _ = await redeem.redeemOfferCode("CODE")  // answered like the GET: "other"

        #expect(await stream.next()?.activeEntitlementIDs == ["other"])  // the switch
        #expect(await stream.next()?.activeEntitlementIDs == ["other"])  // the offer code, not user-1's "pro"
    }
}
