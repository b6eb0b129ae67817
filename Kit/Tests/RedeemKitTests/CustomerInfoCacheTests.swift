import Foundation
import Testing

@testable import RedeemKit

@Suite("Customer info cache and refresh")
struct CustomerInfoCacheTests {
    let day = Fixture.day

    @Test func fetchesTheCurrentUserWithAPercentEncodedID() async throws {
        let transport = FakeTransport(Fixture.customerInfoResponse())
        let redeem = Fixture.redeem(transport: transport, appUserID: "$RCAnonymousID:0123456789abcdef0123456789abcdef")
        _ = try await redeem.customerInfo()
        let request = try #require(transport.requests.first)
        #expect(request.method == "GET")
        #expect(
            request.url.absoluteString
                == "https://pay.example.com/v1/subscribers/%24RCAnonymousID%3A0123456789abcdef0123456789abcdef")
        #expect(request.headers["Authorization"] == "Bearer pk_test_123")
    }

    @Test func refreshesOnlyWhenOlderThanMaxAge() async throws {
        let transport = FakeTransport(Fixture.customerInfoResponse())
        let clock = TestClock()
        let redeem = Fixture.redeem(transport: transport, clock: clock)
        _ = try await redeem.customerInfo()
        clock.advance(by: day - 1)
        _ = try await redeem.customerInfo()
        #expect(transport.count == 1)
        clock.advance(by: 1)
        _ = try await redeem.customerInfo()
        #expect(transport.count == 2)
        _ = try await redeem.customerInfo(fetchPolicy: .fetchCurrent)
        #expect(transport.count == 3)
    }

    @Test func maxAgeIsConfigurable() async throws {
        let transport = FakeTransport(Fixture.customerInfoResponse())
        let clock = TestClock()
        let redeem = Fixture.redeem(transport: transport, clock: clock, cacheMaxAge: 60)
        _ = try await redeem.customerInfo()
        clock.advance(by: 61)
        await redeem.refreshIfStale()
        #expect(transport.count == 2)
    }

    @Test func concurrentRefreshesShareOneRequest() async throws {
        let arrived = Gate()
        let release = Gate()
        let transport = FakeTransport { _, _ in
            await arrived.open()
            await release.wait()
            return Fixture.customerInfoResponse()
        }
        let redeem = Fixture.redeem(transport: transport)
        async let first = redeem.customerInfo()
        await arrived.wait()
        async let second = redeem.customerInfo()
        #expect(await eventually { await redeem.customerInfoManagerFetchWaiters() == 2 })
        await release.open()
        _ = try await (first, second)
        #expect(transport.count == 1)
    }

    @Test func failedRefreshKeepsTheCache() async throws {
        let transport = FakeTransport { _, index in
            if index == 0 { return Fixture.customerInfoResponse() }
            throw TransportFailure()
        }
        let clock = TestClock()
        let redeem = Fixture.redeem(transport: transport, clock: clock, retryPolicy: .none)
        _ = try await redeem.customerInfo()
        clock.advance(by: 2 * day)

        let info = try await redeem.customerInfo()
        #expect(transport.count == 2)
        #expect(info.activeEntitlementIDs == ["pro"])
        // An explicit fetch reports the failure, and still does not wipe the cache.
        await #expect(throws: RedeemError.network) { try await redeem.customerInfo(fetchPolicy: .fetchCurrent) }
        #expect(await redeem.cachedCustomerInfo()?.activeEntitlementIDs == ["pro"])
    }

    @Test func failedRefreshWithoutCacheThrows() async {
        let transport = FakeTransport(HTTPResponse(statusCode: 500))
        let redeem = Fixture.redeem(transport: transport, retryPolicy: .none)
        await #expect(throws: RedeemError.server) { try await redeem.customerInfo() }
    }

    @Test func emptyRefreshKeepsUnexpiredEntitlementsAndAsksAgain() async throws {
        let clock = TestClock()
        let transport = FakeTransport { _, index in
            index == 0
                ? Fixture.customerInfoResponse()
                : Fixture.customerInfoResponse(requestDate: clock.now(), entitlements: [])
        }
        let redeem = Fixture.redeem(transport: transport, clock: clock)
        _ = try await redeem.customerInfo()
        clock.advance(by: 2 * day)

        let info = try await redeem.customerInfo()
        #expect(info.activeEntitlementIDs == ["pro"])
        // The fetch age was not reset, so the next read asks the server again.
        _ = try await redeem.customerInfo()
        #expect(transport.count == 3)
        #expect(await redeem.cachedCustomerInfo()?.activeEntitlementIDs == ["pro"])
    }

    @Test func emptyRefreshReplacesOnlyExpiredEntitlements() async throws {
        let clock = TestClock()
        let transport = FakeTransport { _, index in
            index == 0
                ? Fixture.customerInfoResponse(entitlements: [.init(id: "pro", expires: Fixture.requestDate + 1)])
                : Fixture.customerInfoResponse(requestDate: clock.now(), entitlements: [])
        }
        let redeem = Fixture.redeem(transport: transport, clock: clock)
        _ = try await redeem.customerInfo()
        clock.advance(by: 2 * day)
        let info = try await redeem.customerInfo()
        #expect(info.entitlements.isEmpty)
    }

    @Test func aNonEmptyRefreshIsAuthoritative() async throws {
        let clock = TestClock()
        let transport = FakeTransport { _, index in
            index == 0
                ? Fixture.customerInfoResponse(entitlements: [.init(id: "pro", expires: Fixture.requestDate + 30 * 86_400)])
                : Fixture.customerInfoResponse(
                    requestDate: clock.now(),
                    entitlements: [
                        .init(id: "pro", expires: clock.now() - 1),  // revoked
                        .init(id: "basic", product: "basic", expires: nil),
                    ])
        }
        let redeem = Fixture.redeem(transport: transport, clock: clock)
        _ = try await redeem.customerInfo()
        clock.advance(by: 2 * day)
        let info = try await redeem.customerInfo()
        #expect(info.activeEntitlementIDs == ["basic"])
        #expect(info.entitlements["pro"]?.isActive == false)
    }

    @Test func staleCacheServedOfflineReadsExpiredEntitlementsAsInactive() async throws {
        let transport = FakeTransport { _, index in
            if index == 0 {
                return Fixture.customerInfoResponse(entitlements: [
                    .init(id: "short", expires: Fixture.requestDate + 2 * 86_400),
                    .init(id: "long", expires: Fixture.requestDate + 90 * 86_400),
                ])
            }
            throw TransportFailure()
        }
        let clock = TestClock()
        let redeem = Fixture.redeem(transport: transport, clock: clock, retryPolicy: .none)
        _ = try await redeem.customerInfo()
        clock.advance(by: 5 * day)
        let info = try await redeem.customerInfo()
        #expect(info.entitlements.count == 2)
        #expect(info.activeEntitlementIDs == ["long"])
    }

    @Test func redemptionRefreshesTheCache() async throws {
        let transport = FakeTransport { request, _ in
            request.method == "POST" ? Fixture.redeemSuccess() : Fixture.customerInfoResponse(entitlements: [])
        }
        let clock = TestClock()
        let redeem = Fixture.redeem(transport: transport, clock: clock)
        _ = try await redeem.customerInfo()
        clock.advance(by: day - 10)
        _ = await redeem.redeemWebPurchase(Fixture.redemption)
        clock.advance(by: 20)
        // Fresh from the redemption (fetch age reset), so no GET.
        #expect(try await redeem.customerInfo().activeEntitlementIDs == ["pro"])
        #expect(transport.count == 2)
    }

    @Test func cacheIsOnDiskAndPerUser() async throws {
        let directory = Fixture.temporaryDirectory()
        let storage = InMemoryStorage()
        let transport = FakeTransport(Fixture.customerInfoResponse())
        let first = Fixture.redeem(transport: transport, storage: storage, directory: directory)
        _ = try await first.customerInfo()

        let offline = FakeTransport(HTTPResponse(statusCode: 500))
        let second = Fixture.redeem(transport: offline, storage: storage, directory: directory)
        #expect(try await second.customerInfo().activeEntitlementIDs == ["pro"])
        #expect(offline.count == 0)

        let otherUser = Fixture.redeem(transport: offline, appUserID: "user-2", directory: directory)
        #expect(await otherUser.cachedCustomerInfo() == nil)
    }
}

extension Redeem {
    /// Waiters on the current user's customer-info fetch, for tests.
    func customerInfoManagerFetchWaiters() async -> Int {
        await customerInfoManager.fetchWaiters(for: appUserID)
    }
}
