import Foundation
import HTTPTypes
import RedeemCore
import RedeemTestSupport
import Testing

@Suite struct PurchasesAPITests {
    let idem = HTTPField.Name("Idempotency-Key")!

    @Test(arguments: TestDatabases.available)
    func grantsAreIdempotent(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let body =
                #"{"app_user_id": "alice", "product_id": "monthly", "store": "stripe", "is_sandbox": true, "price": {"amount": "4.99", "currency": "USD"}, "email": "alice@example.com"}"#
            let first = try await server.send(.post, "/v1/purchases", key: app.secret, json: body, headers: [idem: "order-7"])
            #expect(first.status == 201, "\(first.body)")
            let id = try #require(try first.string("purchase.id"))
            #expect(try first.object().value(at: "purchase.price.amount_micros") as? Int == 4_990_000)
            #expect(try first.string("purchase.store_transaction_id")?.hasPrefix("txn_") == true)
            #expect(try first.object().value(at: "customer_info.subscriber.subscriptions.monthly.expires_date") as? String == "2026-07-01T00:00:00Z")
            #expect(try first.object().value(at: "customer_info.subscriber.subscriptions.monthly.price.amount") as? Double == 4.99)
            #expect(try first.object().value(at: "customer_info.subscriber.entitlements.pro.product_identifier") as? String == "monthly")
            let replay = try await server.send(.post, "/v1/purchases", key: app.secret, json: body, headers: [idem: "order-7"])
            #expect(replay.status == 200)
            #expect(try replay.string("purchase.id") == id)
            let reordered =
                #"{"email": "alice@example.com", "price": {"currency": "USD", "amount": "4.99"}, "is_sandbox": true, "store": "stripe", "product_id": "monthly",   "app_user_id": "alice"}"#
            let replayReordered = try await server.send(.post, "/v1/purchases", key: app.secret, json: reordered, headers: [idem: "order-7"])
            #expect(replayReordered.status == 200, "key order and whitespace do not make a different request")
            #expect(try replayReordered.string("purchase.id") == id)
            let changed = try await server.send(
                .post, "/v1/purchases", key: app.secret, json: body.replacingOccurrences(of: "monthly", with: "lifetime"), headers: [idem: "order-7"])
            #expect(changed.status == 409)
            let customer = try #require(try await server.deps.store.findCustomer(appID: app.id, appUserID: .init(validating: "alice")))
            #expect(try await server.deps.store.purchases(customerID: customer.id).count == 1)
        }
    }

    @Test(arguments: TestDatabases.available)
    func badGrantsAreRefusedWithTheField(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let missingKey = try await server.send(.post, "/v1/purchases", key: app.secret, json: #"{"app_user_id": "a", "product_id": "monthly"}"#)
            #expect(missingKey.status == 400)
            #expect(try missingKey.object()["field"] as? String == "Idempotency-Key")
            let cases: [(String, Int, String?)] = [
                (#"{"app_user_id": "a", "product_id": "ghost"}"#, 404, nil),
                (#"{"app_user_id": "null", "product_id": "monthly"}"#, 400, "app_user_id"),
                (#"{"product_id": "monthly"}"#, 400, "app_user_id"),
                (#"{"app_user_id": "a", "product_id": "monthly", "store": "app_store"}"#, 422, "store"),
                (#"{"app_user_id": "a", "product_id": "monthly", "email": "x"}"#, 422, "email"),
                (#"{"app_user_id": "a", "product_id": "monthly", "price": {"amount": "-1", "currency": "USD"}}"#, 422, "price.amount"),
                (#"{"app_user_id": "a", "product_id": "monthly", "price": {"amount": 1, "currency": "usd"}}"#, 422, "price.currency"),
                (#"{"app_user_id": "a", "product_id": "monthly", "purchase_date": "yesterday"}"#, 400, "purchase_date"),
                (
                    #"{"app_user_id": "a", "product_id": "monthly", "purchase_date": "2026-06-01T00:00:00Z", "expires_date": "2026-05-01T00:00:00Z"}"#,
                    422, "expires_date"
                ),
            ]
            for (index, (body, status, field)) in cases.enumerated() {
                let reply = try await server.send(.post, "/v1/purchases", key: app.secret, json: body, headers: [idem: "bad-\(index)"])
                #expect(reply.status == status, "\(body) → \(reply.body)")
                #expect((try? reply.object())?["field"] as? String == field, "\(body) → \(reply.body)")
            }
            #expect(try await server.deps.store.findCustomer(appID: app.id, appUserID: .init(validating: "a")) == nil)
        }
    }

    @Test(arguments: TestDatabases.available)
    func explicitDatesAndNumericPrices(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let body =
                #"{"app_user_id": "bob", "product_id": "monthly", "purchase_date": "2026-01-01T00:00:00Z", "expires_date": "2026-02-01T00:00:00Z", "price": {"amount": 12.5, "currency": "EUR"}}"#
            let reply = try await server.send(.post, "/v1/purchases", key: app.secret, json: body, headers: [idem: "b1"])
            #expect(reply.status == 201)
            let info = try reply.object()
            #expect(info.value(at: "customer_info.subscriber.entitlements.pro.expires_date") as? String == "2026-02-01T00:00:00Z")
            #expect(info.value(at: "customer_info.subscriber.subscriptions.monthly.price.amount") as? Double == 12.5)
            #expect(info.value(at: "customer_info.subscriber.subscriptions.monthly.store") as? String == "external")
        }
    }
}

@Suite struct JSONContentTypeTests {
    /// JSON routes read JSON only: a body sent as text/plain, a form, or with no type at all is a 415.
    @Test(arguments: TestDatabases.available) func jsonRoutesRefuseOtherContentTypes(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let body = #"{"app_user_id": "jane", "redemption_token": "abc"}"#
            for type in ["text/plain", "application/x-www-form-urlencoded"] {
                let reply = try await server.send(
                    .post, "/v1/subscribers/redeem_purchase", key: app.publicSandbox, json: body, headers: [.contentType: type])
                #expect(reply.status == 415 && reply.code == 7415, "\(type)")
            }
            let untyped = try await server.send(.post, "/v1/subscribers/redeem_purchase", key: app.publicSandbox, raw: body)
            #expect(untyped.status == 415 && untyped.code == 7415)
            // Any case, spaces or tabs around the type, and parameters after it.
            for type in ["application/json; charset=utf-8", " Application/JSON\t;charset=utf-8"] {
                let json = try await server.send(
                    .post, "/v1/subscribers/redeem_purchase", key: app.publicSandbox, json: body, headers: [.contentType: type])
                #expect(json.code == 7849, "\(type)")
            }
            // A `+json` type, on a hand-written route and on a generated one.
            let plusJSON: HTTPFields = [.contentType: "application/vnd.api+json; charset=utf-8"]
            let redeem = try await server.send(.post, "/v1/subscribers/redeem_purchase", key: app.publicSandbox, json: body, headers: plusJSON)
            #expect(redeem.code == 7849, "\(redeem.body)")
            let request = try await server.send(
                .post, "/v1/redemption_links/request", key: app.publicSandbox, json: #"{"email": "bob@example.com"}"#, headers: plusJSON)
            #expect(request.status == 202, "\(request.body)")
            for type in [";application/json", "application/jsonx", "text/json"] {
                let other = try await server.send(
                    .post, "/v1/subscribers/redeem_purchase", key: app.publicSandbox, json: body, headers: [.contentType: type])
                #expect(other.status == 415, "\(type)")
            }
        }
    }
}
