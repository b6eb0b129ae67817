import Foundation
import Testing

@testable import RedeemKit

@Suite("In-flight de-duplication")
struct DeduplicationTests {
    @Test func identicalRedemptionsShareOneRequest() async {
        let arrived = Gate()
        let release = Gate()
        let transport = FakeTransport { _, _ in
            await arrived.open()
            await release.wait()
            return Fixture.redeemSuccess()
        }
        let redeem = Fixture.redeem(transport: transport)
        let first = Task { await redeem.redeemWebPurchase(Fixture.redemption) }
        await arrived.wait()
        let second = Task { await redeem.redeemWebPurchase(Fixture.redemption) }
        #expect(await eventually { redeem.redemptions.waiters(for: "user-1\ntok_abc") == 2 })
        await release.open()

        let results = [await first.value, await second.value]
        #expect(transport.count == 1)
        #expect(results.allSatisfy { $0.isSuccess })
        #expect(results[0] == results[1])
    }

    @Test func differentTokensNeverShareAResult() async {
        let arrivals = Locked(0)
        let transport = FakeTransport { request, _ in
            arrivals.withLock { $0 += 1 }
            // Hold each request until both are in flight (bounded, so a merged request fails, not hangs).
            _ = await eventually { arrivals.withLock { $0 } == 2 }
            let token = try JSONDecoder().decode([String: String].self, from: request.body ?? Data())["redemption_token"]
            return token == "good" ? Fixture.redeemSuccess() : Fixture.error(status: 400, code: 7849)
        }
        let redeem = Fixture.redeem(transport: transport)
        async let good = redeem.redeemWebPurchase(WebPurchaseRedemption(redemptionToken: "good"))
        async let bad = redeem.redeemWebPurchase(WebPurchaseRedemption(redemptionToken: "bad"))
        let (goodResult, badResult) = await (good, bad)

        #expect(transport.count == 2)
        #expect(goodResult.isSuccess)
        #expect(badResult == .invalidToken)
    }

    @Test func aFinishedRedemptionIsNotReused() async {
        let transport = FakeTransport([Fixture.error(status: 400, code: 7849), Fixture.redeemSuccess()])
        let redeem = Fixture.redeem(transport: transport)
        #expect(await redeem.redeemWebPurchase(Fixture.redemption) == .invalidToken)
        #expect(await redeem.redeemWebPurchase(Fixture.redemption).isSuccess)
        #expect(transport.count == 2)
        #expect(redeem.redemptions.count == 0)
    }

    @Test func theSameTokenForAnotherUserIsASeparateRequest() async throws {
        let arrived = Gate()
        let release = Gate()
        let transport = FakeTransport { _, index in
            if index == 0 {
                await arrived.open()
                await release.wait()
            }
            return Fixture.redeemSuccess()
        }
        let redeem = Fixture.redeem(transport: transport)
        let first = Task { await redeem.redeemWebPurchase(Fixture.redemption) }
        await arrived.wait()
        try await redeem.logIn("user-2")
        let second = await redeem.redeemWebPurchase(Fixture.redemption)
        await release.open()
        _ = await first.value

        #expect(second.isSuccess)
        let redeemBodies = transport.bodies.filter { $0["redemption_token"] != nil }
        #expect(redeemBodies.map { $0["app_user_id"] } == ["user-1", "user-2"])
    }
}
