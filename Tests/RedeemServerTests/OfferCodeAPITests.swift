import Foundation
import HTTPTypes
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// Offer codes through the admin API and the SDK route, against the real server on both backends.
@Suite struct OfferCodeAPITests {
    /// Creates an offer through the admin API and returns its ID.
    static func offer(_ server: TestServer, _ app: CreatedAppKeys, _ json: String) async throws -> String {
        let reply = try await server.send(.post, "/admin/v1/apps/\(app.id)/offers", key: app.secret, json: json)
        #expect(reply.status == 201, "\(reply.body)")
        return try #require(try reply.string("id"))
    }

    static func customCode(_ server: TestServer, _ app: CreatedAppKeys, offer: String, code: String, cap: Int) async throws {
        let reply = try await server.send(
            .post, "/admin/v1/apps/\(app.id)/custom_codes", key: app.secret,
            json: #"{"offer_id": "\#(offer)", "code": "\#(code)", "max_redemptions": \#(cap)}"#)
        #expect(reply.status == 201, "\(reply.body)")
    }

    static func batch(_ server: TestServer, _ app: CreatedAppKeys, offer: String, count: Int) async throws -> [String] {
        let reply = try await server.send(
            .post, "/admin/v1/apps/\(app.id)/offers/\(offer)/code_batches", key: app.secret,
            json: #"{"count": \#(count), "expires_at": "2026-09-01T00:00:00Z"}"#)
        #expect(reply.status == 201, "\(reply.body)")
        return try #require(try reply.object()["codes"] as? [String])
    }

    static func redeem(_ server: TestServer, _ app: CreatedAppKeys, user: String, code: String) async throws -> TestServer.Reply {
        try await server.send(
            .post, "/v1/subscribers/redeem_offer_code", key: app.publicSandbox,
            json: #"{"app_user_id": "\#(user)", "code": "\#(code)"}"#)
    }

    static let trial =
        #"{"product_id": "monthly", "reference_name": "Trial", "payment_mode": "free_trial", "duration": "P1M", "eligibility": ["new"]}"#

    @Test(arguments: TestDatabases.available)
    func redemptionReturnsCustomerInfoWithTheOfferAtOnce(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let offer = try await Self.offer(server, app, Self.trial)
            let codes = try await Self.batch(server, app, offer: offer, count: 5)
            #expect(codes.count == 5)
            #expect(codes.allSatisfy { $0.wholeMatch(of: /[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}/) != nil })
            let reply = try await Self.redeem(server, app, user: "alice", code: codes[0].lowercased())
            #expect(reply.status == 200, "\(reply.body)")
            let object = try reply.object()
            #expect(object.value(at: "subscriber.entitlements.pro.product_identifier") as? String == "monthly")
            #expect(object.value(at: "subscriber.entitlements.pro.expires_date") as? String == "2026-07-01T00:00:00Z")
            #expect(object.value(at: "subscriber.subscriptions.monthly.offer_code_ref_name") as? String == "Trial")
            #expect(object.value(at: "subscriber.subscriptions.monthly.offer_type") as? String == "offer_code")
            #expect(object.value(at: "subscriber.subscriptions.monthly.offer_discount_type") as? String == "free_trial")
            #expect(object.value(at: "subscriber.subscriptions.monthly.offer_period") as? String == "P1M")
            #expect(object.value(at: "subscriber.subscriptions.monthly.period_type") as? String == "trial")
            #expect(object.value(at: "offer_redemption.kind") as? String == "initial_buy")
            // Customer Info shows the same afterwards.
            let info = try await server.send(.get, "/v1/subscribers/alice", key: app.publicSandbox)
            #expect(try info.object().value(at: "subscriber.subscriptions.monthly.offer_code_ref_name") as? String == "Trial")
        }
    }

    @Test(arguments: TestDatabases.available)
    func everyFailureHasItsOwnCodeAndStatus(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createAppWithCatalog()
            for product in [
                #"{"id": "premium", "type": "subscription", "period": "P1M", "entitlements": ["premium"], "subscription_group": "tiers", "group_level": 1}"#,
                #"{"id": "basic", "type": "subscription", "period": "P1M", "entitlements": ["basic"], "subscription_group": "tiers", "group_level": 2}"#,
            ] {
                #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: product).status == 201)
            }
            let trial = try await Self.offer(server, app, Self.trial)
            try await Self.customCode(server, app, offer: trial, code: "ONCE", cap: 1)
            try await Self.customCode(server, app, offer: trial, code: "TWICE", cap: 2)
            let expiring = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/custom_codes", key: app.secret,
                json: #"{"offer_id": "\#(trial)", "code": "SOON", "max_redemptions": 9, "expires_at": "2026-06-02T00:00:00Z"}"#)
            #expect(expiring.status == 201)
            let off = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/custom_codes", key: app.secret,
                json: #"{"offer_id": "\#(trial)", "code": "PAUSED", "max_redemptions": 9, "active": false}"#)
            #expect(off.status == 201)
            let basic = try await Self.offer(
                server, app,
                #"{"product_id": "basic", "reference_name": "Basic deal", "payment_mode": "free_trial", "duration": "P1W", "eligibility": ["new", "existing"]}"#
            )
            try await Self.customCode(server, app, offer: basic, code: "BASICWEEK", cap: 9)
            let paid = try await Self.offer(
                server, app,
                #"{"product_id": "monthly", "reference_name": "Cheap", "payment_mode": "pay_up_front", "duration": "P6M", "price": {"amount": "9.99", "currency": "USD"}, "eligibility": ["new"]}"#
            )
            try await Self.customCode(server, app, offer: paid, code: "HALFYEAR", cap: 9)
            _ = try await server.grant(app, #"{"app_user_id": "premium-user", "product_id": "premium"}"#)
            _ = try await server.grant(app, #"{"app_user_id": "subscriber", "product_id": "monthly"}"#)

            func expect(
                _ user: String, _ code: String, _ status: Int, _ errorCode: Int, sourceLocation: SourceLocation = #_sourceLocation
            ) async throws {
                let reply = try await Self.redeem(server, app, user: user, code: code)
                #expect(reply.status == status, "\(code): \(reply.body)", sourceLocation: sourceLocation)
                #expect(reply.code == errorCode, "\(code): \(reply.body)", sourceLocation: sourceLocation)
            }
            try await expect("a", "NOSUCHCODE", 400, 7860)
            try await expect("a", "!!", 400, 7860)
            try await expect("a", "PAUSED", 403, 7862)
            #expect(try await Self.redeem(server, app, user: "a", code: "ONCE").status == 200)
            try await expect("b", "ONCE", 409, 7863)
            try await expect("a", "TWICE", 409, 7864)  // one per customer and offer
            try await expect("subscriber", "TWICE", 403, 7865)  // the trial is for new subscribers only
            try await expect("premium-user", "BASICWEEK", 403, 7866)
            try await expect("c", "HALFYEAR", 402, 7868)
            let paymentReply = try await Self.redeem(server, app, user: "c", code: "HALFYEAR")
            // A sandbox key's app pays on the sandbox page, for the user who asked (encoded).
            #expect(
                try paymentReply.string("redeem_url")
                    == "https://pay.example.com/sandbox/redeem?ctx=offercodes&id=\(app.id)&code=HALFYEAR&app_user_id=c")
            let production = try await server.send(
                .post, "/v1/subscribers/redeem_offer_code", key: app.publicProduction, json: #"{"app_user_id": "user e@home", "code": "HALFYEAR"}"#)
            #expect(
                try production.string("redeem_url")
                    == "https://pay.example.com/redeem?ctx=offercodes&id=\(app.id)&code=HALFYEAR&app_user_id=user%20e%40home")
            clock.advance(by: 2 * 86_400)
            try await expect("d", "SOON", 403, 7861)
            // The quota: set to what is used, then one more is refused.
            #expect(
                try await server.send(.patch, "/admin/v1/apps/\(app.id)", key: app.secret, json: #"{"offer_code_quota_per_quarter": 1}"#).status
                    == 200)
            try await expect("e", "TWICE", 403, 7867)
            // Malformed requests and keys.
            #expect(try await server.send(.post, "/v1/subscribers/redeem_offer_code", key: app.publicSandbox, json: #"{"code": "X"}"#).status == 400)
            #expect(
                try await server.send(.post, "/v1/subscribers/redeem_offer_code", key: "rdm_pk_sbx_nope", json: #"{"app_user_id": "a", "code": "X"}"#)
                    .status == 401)
        }
    }

    @Test(arguments: TestDatabases.available)
    func capsHoldUnderTwoHundredConcurrentRedemptions(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, setup: .live) { server in
            let app = try await server.createAppWithCatalog()
            let offer = try await Self.offer(server, app, Self.trial)
            try await Self.customCode(server, app, offer: offer, code: "RUSH", cap: 37)
            let codes = try await Self.batch(server, app, offer: offer, count: 1)
            let results = try await withThrowingTaskGroup(of: (String, Int, Int?).self) { group in
                for i in 0..<200 {
                    group.addTask {
                        let reply = try await Self.redeem(server, app, user: "rush-\(i)", code: "rush")
                        return ("custom", reply.status, reply.code)
                    }
                    group.addTask {
                        let reply = try await Self.redeem(server, app, user: "one-\(i)", code: codes[0])
                        return ("one_time", reply.status, reply.code)
                    }
                }
                return try await group.reduce(into: [(String, Int, Int?)]()) { $0.append($1) }
            }
            // Tally outside #expect: closures inside the macro's expression do not evaluate as written.
            var tally: [String: Int] = [:]
            for (kind, status, code) in results { tally["\(kind) \(status) \(code ?? 0)", default: 0] += 1 }
            #expect(tally == ["custom 200 0": 37, "custom 409 7863": 163, "one_time 200 0": 1, "one_time 409 7864": 199])
            let store = server.deps.store
            #expect(try await store.customCodes(appID: app.id, offerID: offer).first?.redemptionCount == 37)
            #expect(try await store.offerRedemptions(appID: app.id, offerID: offer).count == 38)
            #expect(try await store.offerCodeUsage(appID: app.id, now: TestServer.start).used == 38)
        }
    }

    @Test(arguments: TestDatabases.available)
    func theQuotaHoldsUnderTwoHundredConcurrentRedemptions(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, setup: .live) { server in
            let app = try await server.createAppWithCatalog()
            #expect(
                try await server.send(.patch, "/admin/v1/apps/\(app.id)", key: app.secret, json: #"{"offer_code_quota_per_quarter": 25}"#).status
                    == 200)
            let offer = try await Self.offer(server, app, Self.trial)
            try await Self.customCode(server, app, offer: offer, code: "PLENTY", cap: 1000)
            let results = try await withThrowingTaskGroup(of: String.self) { group in
                for i in 0..<200 {
                    group.addTask {
                        let reply = try await Self.redeem(server, app, user: "quota-\(i)", code: "PLENTY")
                        return "\(reply.status) \(reply.code ?? 0)"
                    }
                }
                return try await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
            }
            #expect(results == ["200 0": 25, "403 7867": 175])
            // Refused redemptions used nothing: the code's count matches the quota's.
            #expect(try await server.deps.store.customCodes(appID: app.id, offerID: offer).first?.redemptionCount == 25)
            #expect(try await server.deps.store.offerCodeUsage(appID: app.id, now: TestServer.start).used == 25)
        }
    }

    @Test(arguments: TestDatabases.available)
    func adminAPIManagesOffersBatchesAndCustomCodes(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            // Validation: a clear 422 naming the field.
            let bad = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/offers", key: app.secret,
                json: #"{"product_id": "monthly", "reference_name": "X", "payment_mode": "pay_as_you_go", "duration": "P1M", "eligibility": ["new"]}"#
            )
            #expect(bad.status == 422)
            #expect(try bad.string("field") == "price")
            let badDuration = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/offers", key: app.secret,
                json: #"{"product_id": "monthly", "reference_name": "X", "payment_mode": "free_trial", "duration": "P5D", "eligibility": ["new"]}"#)
            #expect(badDuration.status == 422)
            #expect(try badDuration.string("field") == "duration")
            #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/offers", key: app.publicSandbox, json: Self.trial).status == 403)
            // The 11th active offer on a subscription is refused.
            var ids: [String] = []
            for i in 0..<10 {
                ids.append(try await Self.offer(server, app, Self.trial.replacingOccurrences(of: "\"Trial\"", with: "\"Trial \(i)\"")))
            }
            let eleventh = try await server.send(.post, "/admin/v1/apps/\(app.id)/offers", key: app.secret, json: Self.trial)
            #expect(eleventh.status == 409)
            #expect(try eleventh.string("message")?.contains("10 active offers") == true)
            let deactivated = try await server.send(.patch, "/admin/v1/apps/\(app.id)/offers/\(ids[0])", key: app.secret, json: #"{"active": false}"#)
            #expect(deactivated.status == 200)
            #expect(try deactivated.object()["active"] as? Bool == false)
            #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/offers", key: app.secret, json: Self.trial).status == 201)
            let duplicateName = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/offers", key: app.secret,
                json: Self.trial.replacingOccurrences(of: "\"new\"]", with: "\"new\"], \"active\": false"))
            #expect(duplicateName.status == 409)
            #expect(
                (try await server.send(.get, "/admin/v1/apps/\(app.id)/offers?product_id=monthly", key: app.secret).object()["offers"] as? [Any])?
                    .count == 11)
            // Batches: JSON once, or CSV; more than 6 months is refused.
            let tooLong = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/offers/\(ids[1])/code_batches", key: app.secret,
                json: #"{"count": 5, "expires_at": "2027-01-01T00:00:00Z"}"#)
            #expect(tooLong.status == 422)
            #expect(try tooLong.string("field") == "expires_at")
            let csv = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/offers/\(ids[1])/code_batches?format=csv", key: app.secret,
                json: #"{"count": 3, "length": 18, "expires_at": "2026-08-01T00:00:00Z"}"#)
            #expect(csv.status == 201)
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8")
            let lines = csv.body.split(separator: "\n")
            #expect(lines.first == "code,redemption_url" && lines.count == 4)
            let code = String(lines[1].split(separator: ",")[0])
            #expect(code.replacingOccurrences(of: "-", with: "").count == 18)
            #expect(lines[1].hasSuffix("&code=" + code.replacingOccurrences(of: "-", with: "")))
            #expect(try await Self.redeem(server, app, user: "csv-user", code: code).status == 200)
            let batches =
                try await server.send(.get, "/admin/v1/apps/\(app.id)/code_batches", key: app.secret).object()["batches"] as? [[String: Any]]
            #expect(batches?.first?["redeemed"] as? Int == 1 && batches?.first?["count"] as? Int == 3)
            let batchID = try #require(batches?.first?["id"] as? String)
            #expect(
                try await server.send(.patch, "/admin/v1/apps/\(app.id)/code_batches/\(batchID)", key: app.secret, json: #"{"active": false}"#).status
                    == 200)
            #expect(try await Self.redeem(server, app, user: "late", code: String(lines[2].split(separator: ",")[0])).code == 7862)
            // Custom codes: unique per app regardless of case.
            try await Self.customCode(server, app, offer: ids[2], code: "Summer25", cap: 3)
            let clash = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/custom_codes", key: app.secret,
                json: #"{"offer_id": "\#(ids[3])", "code": "SUMMER-25", "max_redemptions": 3}"#)
            #expect(clash.status == 409)
            let listed =
                try await server.send(.get, "/admin/v1/apps/\(app.id)/custom_codes", key: app.secret).object()["custom_codes"] as? [[String: Any]]
            #expect(listed?.first?["code"] as? String == "SUMMER25")
            #expect(try await Self.redeem(server, app, user: "sun", code: "summer 25").status == 200)
            // Usage and the report.
            let usage = try await server.send(.get, "/admin/v1/apps/\(app.id)/offer_codes/usage", key: app.secret).object()
            #expect(usage["used"] as? Int == 2 && usage["quota"] as? Int == 1_000_000 && usage["quarter"] as? String == "2026-Q2")
            let report = try await server.send(.get, "/admin/v1/apps/\(app.id)/offer_codes/redemptions?format=csv", key: app.secret)
            let rows = report.body.split(separator: "\n")
            #expect(rows.first == "redeemed_at,app_user_id,customer_id,code_type,custom_code,offer_id,offer_reference_name,channel,purchase_id")
            #expect(rows.count == 3)
            #expect(rows.contains { $0.contains(",sun,") && $0.contains(",custom,SUMMER25,") && $0.contains(",sdk,") })
            #expect(rows.contains { $0.contains(",csv-user,") && $0.contains(",one_time,,") })
        }
    }

    @Test(arguments: TestDatabases.available)
    func guessingIsRateLimited(_ backend: TestBackend) async throws {
        var limits = RateLimits.unlimited
        limits.redeemPerUser = 3
        try await TestServer.with(backend, rateLimits: limits) { server in
            let app = try await server.createAppWithCatalog()
            for _ in 0..<3 { #expect(try await Self.redeem(server, app, user: "guesser", code: OfferCode.generate()).code == 7860) }
            let limited = try await Self.redeem(server, app, user: "guesser", code: OfferCode.generate())
            #expect(limited.status == 429)
            #expect(limited.headers[.retryAfter] != nil)
        }
    }
}
