import Foundation
import Testing

@testable import RedeemKit

@Suite("Delegate pairing")
@MainActor
struct DelegateTests {
    @Test func willComesBeforeTheNetworkAndDidAfter() async {
        let delegate = RecordingDelegate()
        let eventsAtRequest = Locked<[RecordingDelegate.Event]?>(nil)
        let transport = FakeTransport { _, _ in
            let events = await MainActor.run { delegate.events }
            eventsAtRequest.withLock { $0 = events }
            return Fixture.redeemSuccess()
        }
        let redeem = Fixture.redeem(transport: transport)
        redeem.delegate = delegate

        let result = await redeem.redeemWebPurchase(Fixture.redemption)
        #expect(eventsAtRequest.withLock { $0 } == [.will])
        #expect(delegate.events == [.will, .did(result)])
        #expect(result.isSuccess)
    }

    @Test(arguments: [
        HTTPResponse(statusCode: 200, body: Data("not json".utf8)),
        HTTPResponse(statusCode: 200, body: Data("{}".utf8)),
        Fixture.error(status: 400, code: 7849),
        Fixture.error(status: 403, code: 7853),
        HTTPResponse(statusCode: 500),
    ])
    func didIsCalledExactlyOnceWhateverTheOutcome(response: HTTPResponse) async {
        let delegate = RecordingDelegate()
        let redeem = Fixture.redeem(transport: FakeTransport(response))
        redeem.delegate = delegate
        let result = await redeem.redeemWebPurchase(Fixture.redemption)
        #expect(delegate.events == [.will, .did(result)])
    }

    @Test func decodingErrorIsReported() async {
        let delegate = RecordingDelegate()
        let redeem = Fixture.redeem(transport: FakeTransport(HTTPResponse(statusCode: 200, body: Data("[1,2]".utf8))))
        redeem.delegate = delegate
        _ = await redeem.redeemWebPurchase(Fixture.redemption)
        #expect(delegate.events == [.will, .did(.error(.decoding))])
    }

    @Test func cancellationStillPairsWillWithDid() async {
        let delegate = RecordingDelegate()
        let arrived = Gate()
        let never = Gate()
        let transport = FakeTransport { _, _ in
            await arrived.open()
            try await waitCancellably(for: never)
            return Fixture.redeemSuccess()
        }
        let redeem = Fixture.redeem(transport: transport)
        redeem.delegate = delegate

        let task = Task { await redeem.redeemWebPurchase(Fixture.redemption) }
        await arrived.wait()
        task.cancel()
        let result = await task.value

        #expect(result == .error(.cancelled))
        #expect(delegate.events == [.will, .did(.error(.cancelled))])
        #expect(transport.count == 1)
    }

    @Test func cancelledBeforeStartingStillPairs() async {
        let delegate = RecordingDelegate()
        let transport = FakeTransport(Fixture.redeemSuccess())
        let redeem = Fixture.redeem(transport: transport)
        redeem.delegate = delegate
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await redeem.redeemWebPurchase(Fixture.redemption)
        }
        let result = await task.value
        #expect(result == .error(.cancelled))
        #expect(delegate.events == [.will, .did(.error(.cancelled))])
    }

    @Test func oneCancelledCallerDoesNotCancelAnotherSharingTheRequest() async {
        let delegate = RecordingDelegate()
        let arrived = Gate()
        let release = Gate()
        let transport = FakeTransport { _, _ in
            await arrived.open()
            await release.wait()
            return Fixture.redeemSuccess()
        }
        let redeem = Fixture.redeem(transport: transport)
        redeem.delegate = delegate

        let first = Task { await redeem.redeemWebPurchase(Fixture.redemption) }
        await arrived.wait()
        let second = Task { await redeem.redeemWebPurchase(Fixture.redemption) }
        #expect(await eventually { redeem.redemptions.waiters(for: "user-1\ntok_abc") == 2 })
        first.cancel()
        await release.open()

        #expect(await second.value.isSuccess)
        _ = await first.value
        #expect(transport.count == 1)
        #expect(delegate.events.filter { $0 == .will }.count == 2)
        #expect(delegate.events.filter { $0 != .will }.count == 2)
    }

    @Test func completionHandlerRunsOnce() async {
        let redeem = Fixture.redeem(transport: FakeTransport(Fixture.error(status: 400, code: 7849)))
        let calls = Locked<[WebPurchaseRedemptionResult]>([])
        let done = Gate()
        redeem.redeemWebPurchase(Fixture.redemption) { result in
            calls.withLock { $0.append(result) }
            Task { await done.open() }
        }
        await done.wait()
        #expect(calls.withLock { $0 } == [.invalidToken])
    }
}
