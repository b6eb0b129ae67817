import Foundation
import Testing

@testable import RedeemKit

@Suite("Redemption request and result mapping")
struct RedemptionResultTests {
    func redeem(_ response: HTTPResponse) async -> (WebPurchaseRedemptionResult, FakeTransport, Redeem) {
        let transport = FakeTransport(response)
        let redeem = Fixture.redeem(transport: transport)
        return (await redeem.redeemWebPurchase(Fixture.redemption), transport, redeem)
    }

    @Test func sendsTheDocumentedRequest() async throws {
        let (_, transport, _) = await redeem(Fixture.redeemSuccess())
        let request = try #require(transport.requests.first)
        #expect(transport.count == 1)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://pay.example.com/v1/subscribers/redeem_purchase")
        #expect(request.headers["Authorization"] == "Bearer pk_test_123")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(transport.bodies == [["app_user_id": "user-1", "redemption_token": "tok_abc"]])
    }

    @Test func successCarriesCustomerAndRedemptionInfo() async throws {
        let (result, _, _) = await redeem(Fixture.redeemSuccess())
        guard case .success(let info, let redemption) = result else {
            Issue.record("Expected success, got \(result)")
            return
        }
        #expect(info.activeEntitlementIDs == ["pro"])
        #expect(info.entitlements["pro"]?.store == .stripe)
        #expect(redemption.ownerAppUserID == "user-1")
        #expect(redemption.productIdentifier == "monthly")
        #expect(redemption.purchaserEmail == "jane@example.com")
        #expect(redemption.store == .stripe)
        #expect(redemption.stripeCustomerID == "cus_123")
        #expect(redemption.stripeSubscriptionID == "sub_456")
        #expect(redemption.checkoutSessionID == "cs_789")
        #expect(redemption.entitlements == ["pro"])
        #expect(redemption.purchaseID == "pur_1")
    }

    @Test func redemptionInfoDecodesWithOnlyOwnerAndProduct() async {
        var object = Fixture.customerInfoObject()
        object["redemption_info"] = ["owner_app_user_id": "user-1", "product_identifier": "monthly", "store_identifiers": ["n": 7]]
        let (result, _, _) = await redeem(HTTPResponse(statusCode: 200, body: Fixture.json(object)))
        guard case .success(_, let redemption) = result else {
            Issue.record("Expected success, got \(result)")
            return
        }
        #expect(redemption.purchaserEmail == nil)
        #expect(redemption.entitlements.isEmpty)
        #expect(redemption.storeIdentifiers == ["n": "7"])
    }

    @Test(arguments: [
        (Fixture.error(status: 400, code: 7849), WebPurchaseRedemptionResult.invalidToken),
        (Fixture.error(status: 403, code: 7849), .invalidToken),
        (Fixture.error(status: 400, code: "7849"), .invalidToken),
        (Fixture.error(status: 403, code: 7852), .purchaseBelongsToOtherUser),
        (Fixture.error(status: 400, code: " 7852"), .purchaseBelongsToOtherUser),
        (
            Fixture.error(
                status: 403, code: 7853,
                extra: [
                    "purchase_redemption_error_info": ["obfuscated_email": "j***@e***.com", "resent": true]
                ]), .expired(obfuscatedEmail: "j***@e***.com", resent: true)
        ),
        (
            Fixture.error(
                status: 403, code: 7853,
                extra: [
                    "purchase_redemption_error_info": ["obfuscated_email": "j***@e***.com"]
                ]), .expired(obfuscatedEmail: "j***@e***.com", resent: false)
        ),
    ])
    func mapsByJSONCode(response: HTTPResponse, expected: WebPurchaseRedemptionResult) async {
        let (result, transport, _) = await redeem(response)
        #expect(result == expected)
        #expect(transport.count == 1)
    }

    @Test func expiredSubscriptionCarriesCustomerInfo() async throws {
        let expired = Fixture.customerInfoObject(entitlements: [.init(id: "pro", expires: Fixture.requestDate - Fixture.day)])
        let (result, _, redeem) = await redeem(Fixture.error(status: 403, code: 7854, extra: ["customer_info": expired]))
        guard case .expiredSubscription(let info) = result else {
            Issue.record("Expected expiredSubscription, got \(result)")
            return
        }
        #expect(info.entitlements["pro"]?.isActive == false)
        #expect(await redeem.cachedCustomerInfo()?.entitlements["pro"] != nil)
    }

    @Test(arguments: [
        Fixture.error(status: 403, code: 7853),
        Fixture.error(status: 403, code: 7853, extra: ["purchase_redemption_error_info": ["resent": true]]),
        Fixture.error(status: 403, code: 7853, extra: ["purchase_redemption_error_info": ["obfuscated_email": ""]]),
        Fixture.error(status: 403, code: 7854),
        Fixture.error(status: 403, code: 7854, extra: ["customer_info": ["subscriber": [String: Any]()]]),
    ])
    func answersMissingRequiredDataAreErrors(response: HTTPResponse) async {
        let (result, _, _) = await redeem(response)
        #expect(result == .error(.unexpectedResponse))
    }

    @Test(arguments: [
        (Fixture.error(status: 401, code: 7225), 7225 as Int?),
        (Fixture.error(status: 403, code: 1234), 1234),
        (Fixture.error(status: 404, code: nil), nil),
        (HTTPResponse(statusCode: 400, body: Data("<html>".utf8)), nil),
    ])
    func otherFailuresAreServerErrors(response: HTTPResponse, backendCode: Int?) async {
        let (result, transport, _) = await redeem(response)
        guard case .error(let error) = result else {
            Issue.record("Expected error, got \(result)")
            return
        }
        #expect(error == .server)
        #expect(error.statusCode == response.statusCode)
        #expect(error.backendCode == backendCode)
        #expect(transport.count == 1)
    }

    @Test func garbage200IsADecodingError() async {
        let (result, _, redeem) = await redeem(HTTPResponse(statusCode: 200, body: Data("{\"nope\": 1}".utf8)))
        #expect(result == .error(.decoding))
        #expect(await redeem.cachedCustomerInfo() == nil)
    }

    @Test func missingRedemptionInfoIsADecodingErrorButTheGrantIsCached() async {
        let (result, _, redeem) = await redeem(Fixture.customerInfoResponse())
        #expect(result == .error(.decoding))
        #expect(await redeem.cachedCustomerInfo()?.activeEntitlementIDs == ["pro"])
    }

    @Test func successIsCachedForTheCurrentUser() async throws {
        let transport = FakeTransport { request, _ in
            request.method == "POST" ? Fixture.redeemSuccess() : HTTPResponse(statusCode: 500)
        }
        let redeem = Fixture.redeem(transport: transport)
        _ = await redeem.redeemWebPurchase(Fixture.redemption)
        let info = try await redeem.customerInfo()
        #expect(info.activeEntitlementIDs == ["pro"])
        #expect(transport.count == 1)
    }
}
