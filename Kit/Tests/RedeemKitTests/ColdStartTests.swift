import Foundation
import Testing

@testable import RedeemKit

@Suite("Links that arrive before configuration")
@MainActor
struct ColdStartTests {
    /// Answers each token's redemption, recording the tokens in request order.
    static func tokenTransport() -> FakeTransport {
        FakeTransport { request, _ in
            let token = (try? JSONDecoder().decode([String: String].self, from: request.body ?? Data()))?["redemption_token"]
            return token == "bad" ? Fixture.error(status: 400, code: 7849) : Fixture.redeemSuccess()
        }
    }

    static func tokens(_ transport: FakeTransport) -> [String] {
        transport.bodies.compactMap { $0["redemption_token"] }
    }

    @Test func keepsEveryLinkAndRedeemsThemInOrder() async {
        let buffer = LinkBuffer()
        let results = Locked<[String: WebPurchaseRedemptionResult]>([:])
        let links = [
            "myapp://redeem_web_purchase?redemption_token=t1",
            "https://pay.example.com/r/t2",
            "myapp://redeem_web_purchase?redemption_token=bad",
            "myapp://redeem_web_purchase?redemption_token=t1",
            "https://pay.example.com/r/t4",
        ]
        for (index, link) in links.enumerated() {
            let taken = buffer.handle(URL(string: link)!) { result in
                results.withLock { $0["\(index)"] = result }
            }
            #expect(taken)
        }
        #expect(!buffer.handle(URL(string: "myapp://settings")!, onResult: nil))
        #expect(!buffer.handle(URL(string: "https://pay.example.com/pricing")!, onResult: nil))
        #expect(buffer.pendingCount == 5)

        let transport = Self.tokenTransport()
        let delegate = RecordingDelegate()
        let redeem = Fixture.redeem(transport: transport)
        redeem.delegate = delegate
        buffer.attach(redeem)

        #expect(await eventually { results.withLock { $0.count } == 5 })
        #expect(Self.tokens(transport) == ["t1", "t2", "bad", "t1", "t4"])
        #expect(results.withLock { $0["2"] } == .invalidToken)
        #expect(results.withLock { $0["4"] }?.isSuccess == true)
        #expect(delegate.events.count == 10)
        #expect(buffer.pendingCount == 0)
    }

    @Test func linksAfterConfigurationQueueBehindKeptOnes() async {
        let buffer = LinkBuffer()
        let done = Locked(0)
        let count: @MainActor @Sendable (WebPurchaseRedemptionResult) -> Void = { _ in done.withLock { $0 += 1 } }
        _ = buffer.handle(URL(string: "myapp://redeem_web_purchase?redemption_token=k1")!, onResult: count)
        _ = buffer.handle(URL(string: "myapp://redeem_web_purchase?redemption_token=k2")!, onResult: count)

        let transport = Self.tokenTransport()
        buffer.attach(Fixture.redeem(transport: transport))
        #expect(buffer.handle(URL(string: "https://pay.example.com/r/later")!, onResult: count))

        #expect(await eventually { done.withLock { $0 } == 3 })
        #expect(Self.tokens(transport) == ["k1", "k2", "later"])
    }

    @Test func provisionalHTTPSLinksOnOtherHostsAreDroppedAfterConfiguration() async {
        let buffer = LinkBuffer()
        let called = Locked(0)
        #expect(buffer.handle(URL(string: "https://elsewhere.example.org/r/x1")!) { _ in called.withLock { $0 += 1 } })
        _ = buffer.handle(URL(string: "myapp://redeem_web_purchase?redemption_token=ok")!) { _ in called.withLock { $0 += 1 } }

        let transport = Self.tokenTransport()
        let redeem = Fixture.redeem(transport: transport)
        buffer.attach(redeem)
        #expect(await eventually { called.withLock { $0 } == 1 })
        #expect(Self.tokens(transport) == ["ok"])
        // Once configured, links on other hosts are refused up front.
        #expect(!buffer.handle(URL(string: "https://elsewhere.example.org/r/x2")!, onResult: nil))
    }

    @Test func keptLinksReportToTheDelegate() async {
        let buffer = LinkBuffer()
        _ = buffer.handle(URL(string: "myapp://redeem_web_purchase?redemption_token=t1")!, onResult: nil)
        let delegate = RecordingDelegate()
        let redeem = Fixture.redeem(transport: Self.tokenTransport())
        redeem.delegate = delegate
        buffer.attach(redeem)
        #expect(await eventually { await MainActor.run { delegate.events.count } == 2 })
        #expect(delegate.events.first == .will)
    }
}
