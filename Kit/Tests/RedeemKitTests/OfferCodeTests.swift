import Foundation
import Testing

@testable import RedeemKit

@Suite("Offer codes")
struct OfferCodeTests {
    @Test func sendsTheDocumentedRequestAndCachesSuccess() async throws {
        let transport = FakeTransport { request, _ in
            request.method == "POST" ? Fixture.customerInfoResponse() : HTTPResponse(statusCode: 500)
        }
        let redeem = Fixture.redeem(transport: transport)
        let result = await redeem.redeemOfferCode("  SPRING-2026 \n")
        guard case .success(let info) = result else {
            Issue.record("Expected success, got \(result)")
            return
        }
        #expect(info.activeEntitlementIDs == ["pro"])
        let request = try #require(transport.requests.first)
        #expect(request.url.absoluteString == "https://pay.example.com/v1/subscribers/redeem_offer_code")
        #expect(request.headers["Authorization"] == "Bearer pk_test_123")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(transport.bodies == [["app_user_id": "user-1", "code": "SPRING-2026"]])
        // Cached: no second request.
        #expect(try await redeem.customerInfo().activeEntitlementIDs == ["pro"])
        #expect(transport.count == 1)
    }

    @Test(arguments: [
        (7860, OfferCodeRedemptionResult.invalid),
        (7861, .expired),
        (7862, .inactive),
        (7863, .exhausted),
        (7864, .alreadyRedeemed),
        (7865, .notEligible),
        (7866, .wouldDowngrade),
        (7867, .quotaReached),
    ])
    func mapsEveryCode(code: Int, expected: OfferCodeRedemptionResult) async {
        for status in [400, 403, 409] {
            let transport = FakeTransport(Fixture.error(status: status, code: code))
            #expect(await Fixture.redeem(transport: transport).redeemOfferCode("CODE") == expected)
            let asString = FakeTransport(Fixture.error(status: status, code: String(code)))
            #expect(await Fixture.redeem(transport: asString).redeemOfferCode("CODE") == expected)
        }
    }

    @Test func aPaidOfferPointsToItsWebPage() async {
        let body = #"{"code": 7868, "message": "pay", "redeem_url": "https://pay.example.com/redeem?ctx=offercodes&id=app_1&code=HALF"}"#
        let transport = FakeTransport(HTTPResponse(statusCode: 402, body: Data(body.utf8)))
        let result = await Fixture.redeem(transport: transport).redeemOfferCode("HALF")
        #expect(result == .paymentRequired(redeemURL: URL(string: "https://pay.example.com/redeem?ctx=offercodes&id=app_1&code=HALF")))
    }

    @Test func unknownCodeIsAnError() async {
        let transport = FakeTransport(Fixture.error(status: 400, code: 7999))
        let result = await Fixture.redeem(transport: transport).redeemOfferCode("CODE")
        guard case .error(let error) = result else {
            Issue.record("Expected error, got \(result)")
            return
        }
        #expect(error == .server)
        #expect(error.backendCode == 7999)
    }

    @Test func blankCodeIsInvalidWithoutARequest() async {
        let transport = FakeTransport(Fixture.customerInfoResponse())
        #expect(await Fixture.redeem(transport: transport).redeemOfferCode("   ") == .invalid)
        #expect(transport.count == 0)
    }
}
