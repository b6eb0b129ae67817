import Foundation
import Testing

@testable import RedeemKit

@Suite("Retries and backoff")
struct RetryTests {
    @Test func retriesServerErrorsWithExponentialBackoff() async {
        let transport = FakeTransport([HTTPResponse(statusCode: 503), HTTPResponse(statusCode: 502), Fixture.redeemSuccess()])
        let clock = TestClock()
        let result = await Fixture.redeem(transport: transport, clock: clock).redeemWebPurchase(Fixture.redemption)
        #expect(result.isSuccess)
        #expect(transport.count == 3)
        #expect(clock.sleeps == [0.5, 1.0])
        #expect(transport.requests.map { $0.headers["X-Retry-Count"] } == [nil, "1", "2"])
    }

    @Test func givesUpAfterSixRetries() async {
        let transport = FakeTransport(HTTPResponse(statusCode: 500))
        let clock = TestClock()
        let result = await Fixture.redeem(transport: transport, clock: clock).redeemWebPurchase(Fixture.redemption)
        #expect(transport.count == 7)
        #expect(clock.sleeps == [0.5, 1, 2, 4, 8, 16])
        guard case .error(let error) = result else {
            Issue.record("Expected error, got \(result)")
            return
        }
        #expect(error == .server)
        #expect(error.statusCode == 500)
    }

    @Test func retriesNetworkFailures() async {
        let transport = FakeTransport { _, _ in throw TransportFailure() }
        let clock = TestClock()
        let result = await Fixture.redeem(transport: transport, clock: clock).redeemWebPurchase(Fixture.redemption)
        #expect(result == .error(.network))
        #expect(transport.count == 7)
        #expect(clock.sleeps.count == 6)
    }

    @Test func recoversFromATransientNetworkFailure() async {
        let transport = FakeTransport { _, index in
            if index == 0 { throw TransportFailure() }
            return Fixture.redeemSuccess()
        }
        let result = await Fixture.redeem(transport: transport).redeemWebPurchase(Fixture.redemption)
        #expect(result.isSuccess)
        #expect(transport.count == 2)
    }

    @Test(arguments: [408, 425, 429, 500, 502, 503, 504, 599])
    func retryableStatuses(status: Int) async {
        let transport = FakeTransport([HTTPResponse(statusCode: status), Fixture.redeemSuccess()])
        let result = await Fixture.redeem(transport: transport).redeemWebPurchase(Fixture.redemption)
        #expect(result.isSuccess)
        #expect(transport.count == 2)
    }

    @Test(arguments: [400, 401, 403, 404, 409, 410, 422])
    func otherClientErrorsAreNotRetried(status: Int) async {
        let transport = FakeTransport([HTTPResponse(statusCode: status), Fixture.redeemSuccess()])
        let clock = TestClock()
        let result = await Fixture.redeem(transport: transport, clock: clock).redeemWebPurchase(Fixture.redemption)
        #expect(!result.isSuccess)
        #expect(transport.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func honoursRetryAfter() async {
        let transport = FakeTransport([
            HTTPResponse(statusCode: 429, headers: ["retry-after": "7"]),
            HTTPResponse(statusCode: 503, headers: ["Retry-After": "0"]),
            Fixture.redeemSuccess(),
        ])
        let clock = TestClock()
        let result = await Fixture.redeem(transport: transport, clock: clock).redeemWebPurchase(Fixture.redemption)
        #expect(result.isSuccess)
        #expect(clock.sleeps == [7, 0])
    }

    @Test func retryAfterLongerThanTheCapEndsWithRateLimited() async {
        let transport = FakeTransport(HTTPResponse(statusCode: 429, headers: ["Retry-After": "3600"]))
        let clock = TestClock()
        let result = await Fixture.redeem(transport: transport, clock: clock).redeemWebPurchase(Fixture.redemption)
        #expect(transport.count == 1)
        #expect(clock.sleeps.isEmpty)
        guard case .error(let error) = result else {
            Issue.record("Expected error, got \(result)")
            return
        }
        #expect(error == .rateLimited)
        #expect(error.retryAfter == 3600)
    }

    @Test func persistent429EndsWithRateLimited() async {
        let transport = FakeTransport(HTTPResponse(statusCode: 429, headers: ["Retry-After": "1"]))
        let clock = TestClock()
        let result = await Fixture.redeem(transport: transport, clock: clock).redeemWebPurchase(Fixture.redemption)
        #expect(transport.count == 7)
        #expect(clock.sleeps == [1, 1, 1, 1, 1, 1])
        #expect(result == .error(.rateLimited))
    }

    @Test func jitterStaysWithinOneBaseDelay() {
        let low = RetryPolicy(random: { 0 })
        let high = RetryPolicy(random: { 0.999 })
        for retry in 0..<6 {
            let floor = 0.5 * pow(2, Double(retry))
            #expect(low.backoff(retry: retry) == floor)
            #expect(high.backoff(retry: retry) > floor)
            #expect(high.backoff(retry: retry) < floor + 0.5)
        }
        #expect(RetryPolicy(maxDelay: 3, random: { 0 }).backoff(retry: 10) == 3)
    }

    @Test func parsesRetryAfterSecondsAndDates() {
        let now = Date(timeIntervalSince1970: 1_445_412_480)  // Wed, 21 Oct 2015 07:28:00 GMT
        #expect(RetryPolicy.retryAfter("120", now: now) == 120)
        #expect(RetryPolicy.retryAfter("Wed, 21 Oct 2015 07:28:30 GMT", now: now) == 30)
        #expect(RetryPolicy.retryAfter("soon", now: now) == nil)
        #expect(RetryPolicy.retryAfter(nil, now: now) == nil)
    }

    @Test func offerCodesAndCustomerInfoRetryToo() async throws {
        let transport = FakeTransport([HTTPResponse(statusCode: 503), Fixture.customerInfoResponse()])
        let redeem = Fixture.redeem(transport: transport)
        #expect(await redeem.redeemOfferCode("CODE").isSuccess)
        let second = FakeTransport([HTTPResponse(statusCode: 503), Fixture.customerInfoResponse()])
        _ = try await Fixture.redeem(transport: second).customerInfo()
        #expect(transport.count == 2)
        #expect(second.count == 2)
    }

    @Test func cancellationDuringBackoffStopsRetrying() async {
        let transport = FakeTransport(HTTPResponse(statusCode: 503))
        let backend = Backend(
            baseURL: Fixture.baseURL, apiKey: "pk", transport: transport,
            retryPolicy: .default, clock: CancellingClock()
        )
        let result = await backend.redeemPurchase(token: "t", appUserID: "u")
        #expect(result.failureValue == .cancelled)
        #expect(transport.count == 1)
    }
}

/// A clock whose sleep is always cancelled.
private struct CancellingClock: RedeemClock {
    func now() -> Date { Fixture.requestDate }
    func sleep(seconds: TimeInterval) async throws { throw CancellationError() }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
