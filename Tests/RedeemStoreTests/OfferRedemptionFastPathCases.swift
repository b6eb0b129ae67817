import Foundation
import RedeemCore
import RedeemTestSupport
import Testing

@testable import RedeemStore

/// PostgreSQL's one-statement offer-code redemption answers what the transactional path would, and hands every case
/// it does not own (or any conflict) to it.
@Suite struct OfferRedemptionFastPathCases {
    static let now = Fixture.now

    static func withStore(_ body: (SQLStore) async throws -> Void) async throws {
        try await TestDatabases.withStore(.postgres, body)
    }

    static func request(_ appID: String, _ code: String, by user: String, channel: OfferRedemptionChannel = .sdk) -> OfferCodeRedemptionRequest {
        var request = OfferCodeRedemptionRequest(appID: appID, code: code, claimant: Fixture.user(user), channel: channel, isSandbox: true, now: now)
        request.includeCustomerInfo = channel == .sdk
        return request
    }

    /// An app whose quarter already has its quota stripes (the quarter's first redemption, by `warm`, lays them out on
    /// the transactional path), with an offer for new subscribers and `count` codes left.
    static func warmApp(_ store: SQLStore, name: String = "Test App", count: Int = 3) async throws -> (App, Offer, [String]) {
        let app = try await Fixture.app(store, name: name)
        try await Fixture.catalog(store, appID: app.id)
        let offer = try await OfferCases.makeOffer(store, appID: app.id, name: "Winter trial", eligibility: [.new])
        let (_, codes) = try await OfferCases.makeBatch(store, offer, count: count + 1)
        #expect(try await store.fastOfferRedemption(request(app.id, codes[0], by: "warm")) == nil, "no stripes yet")
        #expect(OfferCases.failure(try await store.redeemOfferCode(request(app.id, codes[0], by: "warm"))) == nil)
        return (app, offer, Array(codes.dropFirst()))
    }

    static func quotaUsed(_ store: SQLStore, _ appID: String) async throws -> Int64 {
        try await store.database.read {
            try await $0.first("SELECT CAST(COALESCE(SUM(used), 0) AS BIGINT) AS n FROM offer_quota_stripes WHERE app_id = \(appID)")?.int("n") ?? -1
        }
    }

    @Test(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL")) func aCodeRedeemedInAppGetsWhatTheTransactionalPathGives()
        async throws
    {
        try await Self.withStore { store in
            var results: [OfferCodeRedemption] = []
            for (name, fast) in [("Fast", true), ("Twin", false)] {
                let (app, offer, codes) = try await Self.warmApp(store, name: name)
                // erin is known and owns coins; the offer is for new subscribers of monthly.
                _ = try await store.grant(
                    PurchaseGrant(appID: app.id, appUserID: Fixture.user("erin"), productID: "coins", purchaseDate: Self.now), idempotency: nil,
                    now: Self.now)
                let request = Self.request(app.id, OfferCode.grouped(codes[0]).lowercased(), by: "erin")
                let redemption =
                    fast
                    ? try #require(try await store.fastOfferRedemption(request))
                    : try await store.redeemOfferCodeOnce(request)
                results.append(redemption)
                #expect(redemption.kind == .initialBuy)
                #expect(redemption.purchase.periodType == .trial)
                #expect(redemption.purchase.expiresDate == ISO8601Period(months: 1).advance(Self.now))
                #expect(
                    redemption.purchase.offer
                        == PurchaseOffer(offerID: offer.id, referenceName: "Winter trial", discountType: .freeTrial, period: "P1M"))
                #expect(redemption.customerInfo == (try await store.customerInfo(appID: app.id, appUserID: Fixture.user("erin"), now: Self.now)))
                #expect(try await Self.quotaUsed(store, app.id) == 2)
                let records = try await store.offerRedemptions(appID: app.id).filter { $0.appUserID == "erin" }
                #expect(records.map(\.purchaseID) == [redemption.purchase.id] && records.map(\.channel) == ["sdk"])
                // The code is used: by anyone, again, it is refused (on the transactional path).
                #expect(try await store.fastOfferRedemption(Self.request(app.id, codes[0], by: "bob")) == nil)
                #expect(OfferCases.failure(try await store.redeemOfferCode(Self.request(app.id, codes[0], by: "bob"))) == .alreadyRedeemed)
            }
            let (fast, transactional) = (try #require(results.first?.customerInfo), try #require(results.last?.customerInfo))
            #expect(fast.subscriber.entitlements.keys.sorted() == ["pro"])
            #expect(fast.subscriber.entitlements.keys.sorted() == transactional.subscriber.entitlements.keys.sorted())
            #expect(fast.subscriber.subscriptions.keys.sorted() == transactional.subscriber.subscriptions.keys.sorted())
            #expect(fast.subscriber.nonSubscriptions.keys.sorted() == transactional.subscriber.nonSubscriptions.keys.sorted())
            let (fastOffer, transactionalOffer) = (
                fast.subscriber.subscriptions["monthly"]?.offer, transactional.subscriber.subscriptions["monthly"]?.offer
            )
            #expect(fastOffer?.referenceName == transactionalOffer?.referenceName && fastOffer?.period == transactionalOffer?.period)
            #expect(fast.subscriber.subscriptions["monthly"]?.expiresDate == transactional.subscriber.subscriptions["monthly"]?.expiresDate)
        }
    }

    @Test(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL")) func aCustomCodeCountsOneUseForANewClaimant() async throws
    {
        try await Self.withStore { store in
            let (app, offer, _) = try await Self.warmApp(store)
            let custom = try await OfferCases.makeCustom(store, offer, code: "SPRING", cap: 5)
            let redemption = try #require(try await store.fastOfferRedemption(Self.request(app.id, "spring", by: "newcomer")))
            let customer = try #require(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("newcomer")))
            #expect(redemption.purchase.customerID == customer.id)
            #expect(try await store.customCodes(appID: app.id).first { $0.id == custom.id }?.redemptionCount == 1)
            // One per customer and offer: the same claimant again is refused on the transactional path.
            #expect(try await store.fastOfferRedemption(Self.request(app.id, "spring", by: "newcomer")) == nil)
            #expect(OfferCases.failure(try await store.redeemOfferCode(Self.request(app.id, "spring", by: "newcomer"))) == .alreadyRedeemed)
            #expect(try await store.customCodes(appID: app.id).first { $0.id == custom.id }?.redemptionCount == 1)
        }
    }

    @Test(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL")) func casesItDoesNotOwnGoTheTransactionalWay() async throws
    {
        try await Self.withStore { store in
            let (app, _, codes) = try await Self.warmApp(store)
            // The web claim (no Customer Info in its answer); a paid offer; an ineligible claimant; unknown text.
            #expect(try await store.fastOfferRedemption(Self.request(app.id, codes[0], by: "web", channel: .web)) == nil)
            let paid = try await OfferCases.makeOffer(
                store, appID: app.id, mode: .payUpFront, price: Price(amountMicros: 990_000, currency: "USD"))
            let (_, paidCodes) = try await OfferCases.makeBatch(store, paid, count: 1)
            #expect(try await store.fastOfferRedemption(Self.request(app.id, paidCodes[0], by: "payer")) == nil)
            try await OfferCases.subscribe(store, app.id, "subscriber", start: Self.now)
            #expect(try await store.fastOfferRedemption(Self.request(app.id, codes[0], by: "subscriber")) == nil)
            #expect(try await store.fastOfferRedemption(Self.request(app.id, "NOPE-NOT-A-CODE", by: "x")) == nil)
            // None of these used a code or the quota.
            #expect(try await Self.quotaUsed(store, app.id) == 1)
            #expect(OfferCases.failure(try await store.redeemOfferCode(Self.request(app.id, codes[0], by: "carol"))) == nil)
        }
    }

    /// The statement asserts that its claim took: a code taken after the facts were read leaves nothing of it.
    @Test(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL")) func aCodeTakenMeanwhileUndoesTheWholeStatement()
        async throws
    {
        try await Self.withStore { store in
            let (app, _, codes) = try await Self.warmApp(store)
            let request = Self.request(app.id, codes[0], by: "late")
            let facts = try #require(try await store.database.read { try await SQLStore.offerFacts(request, on: $0) })
            #expect(OfferCases.failure(try await store.redeemOfferCode(Self.request(app.id, codes[0], by: "early"))) == nil)
            var grant = PurchaseGrant(appID: app.id, appUserID: Fixture.user("late"), productID: "monthly", purchaseDate: Self.now)
            grant.offer = PurchaseOffer(facts.found.offer)
            let (purchase, insert) = try SQLStore.purchaseInsert(grant, product: facts.found.product, customerID: "cus_late", now: Self.now)
            #expect(facts.stripes.count == StripedCount.stripes, "the quarter's first redemption laid out every stripe")
            let statement = SQLStore.offerApply(
                request, found: facts.found, claimantID: "cus_late", isNew: true, insert: insert, purchase: purchase, quotaFirst: 0,
                codeFirst: 0, quota: facts.quota, deliveries: [], endpoints: [])
            await #expect { try await store.database.read { try await $0.query(statement) } } throws: { ($0 as? StoreError)?.isRaceLost == true }
            #expect(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("late")) == nil)
            #expect(try await Self.quotaUsed(store, app.id) == 2)
            #expect(try await store.offerRedemptions(appID: app.id).contains { $0.appUserID == "late" } == false)
        }
    }

    /// A stripe found full or held by another transaction is passed over, never waited for: the custom code's use and
    /// the quota's count land on the next stripes in order with room.
    @Test(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL")) func aFullOrHeldStripeIsPassedOverNotWaitedFor()
        async throws
    {
        try await Self.withStore { store in
            let (app, offer, _) = try await Self.warmApp(store)
            let code = try await OfferCases.makeCustom(store, offer, code: "CROWD", cap: 32)
            let (facts, statement) = try await Self.customApply(store, app.id, "crowd", by: "late")
            let quota = OfferQuota.quarter(of: Self.now)
            try await store.database.transaction {
                try await $0.query("UPDATE offer_custom_code_stripes SET used = 2 WHERE code_id = \(code.id) AND stripe = 0")
            }
            let quotaBefore = try await Self.stripesUsed(store, "offer_quota_stripes", "app_id = \(app.id) AND quarter = \(quota)")
            try await store.database.transaction { holder in
                try await holder.query("SELECT 1 FROM offer_custom_code_stripes WHERE code_id = \(code.id) AND stripe = 1 FOR UPDATE")
                try await holder.query("SELECT 1 FROM offer_quota_stripes WHERE app_id = \(app.id) AND quarter = \(quota) AND stripe = 0 FOR UPDATE")
                try await Self.runWithoutWaiting(store, statement)
            }
            #expect(facts.codeStripes[0] == 0, "stripe 0 had room when the facts were read")
            #expect(try await Self.stripesUsed(store, "offer_custom_code_stripes", "code_id = \(code.id)").prefix(3) == [2, 0, 1])
            var quotaAfter = quotaBefore
            quotaAfter[1] += 1
            #expect(try await Self.stripesUsed(store, "offer_quota_stripes", "app_id = \(app.id) AND quarter = \(quota)") == quotaAfter)
            #expect(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("late")) != nil)
        }
    }

    /// When every stripe with room is full or held, nothing of the statement stays; the transactional path, which
    /// waits for a held stripe, then counts the use.
    @Test(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL"))
    func everyStripeWithRoomFullOrHeldUndoesTheWholeStatement() async throws {
        try await Self.withStore { store in
            let (app, offer, _) = try await Self.warmApp(store)
            let code = try await OfferCases.makeCustom(store, offer, code: "PAIR", cap: 2)  // stripes 0 and 1, one use each
            let (_, statement) = try await Self.customApply(store, app.id, "pair", by: "late")
            try await store.database.transaction {
                try await $0.query("UPDATE offer_custom_code_stripes SET used = 1 WHERE code_id = \(code.id) AND stripe = 0")
            }
            try await store.database.transaction { holder in
                try await holder.query("SELECT 1 FROM offer_custom_code_stripes WHERE code_id = \(code.id) AND stripe = 1 FOR UPDATE")
                await #expect { try await Self.runWithoutWaiting(store, statement) } throws: { ($0 as? StoreError)?.isRaceLost == true }
            }
            #expect(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("late")) == nil)
            #expect(try await Self.quotaUsed(store, app.id) == 1)
            #expect(try await store.customCodes(appID: app.id).map(\.redemptionCount) == [1])
            #expect(OfferCases.failure(try await store.redeemOfferCode(Self.request(app.id, "pair", by: "late"))) == nil)
            #expect(try await store.customCodes(appID: app.id).map(\.redemptionCount) == [2])
            #expect(OfferCases.failure(try await store.redeemOfferCode(Self.request(app.id, "pair", by: "third"))) == .exhausted)
        }
    }

    /// The facts of a custom code's redemption by a new claimant, and the statement applying it that tries the code's
    /// and the quota's stripe 0 first.
    static func customApply(_ store: SQLStore, _ appID: String, _ code: String, by user: String) async throws -> (SQLStore.OfferFacts, SQL) {
        let request = Self.request(appID, code, by: user)
        let facts = try #require(try await store.database.read { try await SQLStore.offerFacts(request, on: $0) })
        var grant = PurchaseGrant(appID: appID, appUserID: Fixture.user(user), productID: "monthly", purchaseDate: Self.now)
        grant.offer = PurchaseOffer(facts.found.offer)
        let (purchase, insert) = try SQLStore.purchaseInsert(grant, product: facts.found.product, customerID: "cus_\(user)", now: Self.now)
        let statement = SQLStore.offerApply(
            request, found: facts.found, claimantID: "cus_\(user)", isNew: true, insert: insert, purchase: purchase, quotaFirst: 0,
            codeFirst: 0, quota: facts.quota, deliveries: [], endpoints: [])
        return (facts, statement)
    }

    /// Runs `statement` on another connection, failing (SQLSTATE 55P03) rather than waiting long for a lock.
    static func runWithoutWaiting(_ store: SQLStore, _ statement: SQL) async throws {
        try await store.database.transaction {
            try await $0.query("SET LOCAL lock_timeout = '2s'")
            try await $0.query(statement)
        }
    }

    static func stripesUsed(_ store: SQLStore, _ table: String, _ owner: SQL) async throws -> [Int64] {
        try await store.database.read {
            try await $0.query("SELECT used FROM \(unsafeRaw: table) WHERE \(sql: owner) ORDER BY stripe").map { try $0.int("used") }
        }
    }

    /// Rows PostgreSQL gives as JSON read back as the engine's own values.
    @Test func aJSONRowReadsLikeARow() throws {
        let row = try SQLRow(json: #"{"id": "p1", "n": 1700000000000, "price": 9.99, "flag": true, "none": null}"#)
        #expect(try row.string("id") == "p1" && row.int("n") == 1_700_000_000_000 && row.bool("flag"))
        #expect(row["price"] == .double(9.99) && row["none"] == .null)
    }

    /// With live endpoints the statement queues the event the transactional path queues: for a known and a new
    /// claimant, the same type and body (but for its own IDs) as a twin app gets, to each endpoint.
    @Test(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL")) func theWebhookEventIsTheTransactionalPathsEvent()
        async throws
    {
        try await Self.withStore { store in
            var bodies: [String: [String]] = [:]
            for (name, fast) in [("Fast", true), ("Twin", false)] {
                let (app, offer, codes) = try await Self.warmApp(store, name: name)
                _ = try await store.grant(
                    PurchaseGrant(appID: app.id, appUserID: Fixture.user("erin"), productID: "coins", purchaseDate: Self.now), idempotency: nil,
                    now: Self.now)
                try await RedemptionFastPathCases.addAlias(store, app.id, to: "erin", "erin-ipad")
                _ = try await store.setAttributes(
                    appID: app.id, appUserID: Fixture.user("erin"), changes: [.init(key: "$displayName", value: "Erin", updatedAt: Self.now)],
                    fromBackend: false, now: Self.now)
                for id in ["whe_a", "whe_b"] {
                    try await store.createWebhookEndpoint(
                        WebhookEndpoint(
                            id: id + app.id, appID: app.id, url: "https://example.com/\(id)", authorization: nil, signingSecret: "s",
                            createdAt: Self.now))
                }
                for (index, user) in ["erin", "newcomer"].enumerated() {
                    var request = Self.request(app.id, codes[index], by: user)
                    request.now = Self.now.addingTimeInterval(Double(60 + index))
                    let redemption =
                        fast ? try #require(try await store.fastOfferRedemption(request)) : try await store.redeemOfferCodeOnce(request)
                    let at = request.now
                    let rows = try await store.database.read {
                        try await $0.query(
                            "SELECT event_type, body FROM webhook_deliveries WHERE app_id = \(app.id) AND created_at = \(at) ORDER BY endpoint_id"
                        )
                    }
                    #expect(rows.count == 2, "one event, to each endpoint")
                    bodies[user + (fast ? "-fast" : "-twin")] = try rows.map { row in
                        // What differs between the twins: the app, the offer, the purchase and the event IDs.
                        var body = try row.string("body")
                        for (value, placeholder) in [
                            (app.id, "APP"), (offer.id, "OFFER"), (redemption.purchase.id, "PURCHASE"),
                            (redemption.purchase.storeTransactionID ?? "-", "TXN"),
                        ] {
                            body = body.replacingOccurrences(of: value, with: placeholder)
                        }
                        return try row.string("event_type") + " "
                            + body.replacingOccurrences(of: #"evt_[A-Za-z0-9_-]+"#, with: "EVT", options: .regularExpression)
                    }
                }
            }
            #expect(bodies.count == 4)
            for user in ["erin", "newcomer"] { #expect(bodies[user + "-fast"] == bodies[user + "-twin"]) }
            #expect(bodies["erin-fast"]?.first?.hasPrefix("INITIAL_PURCHASE ") == true)
            #expect(bodies["erin-fast"]?.first?.contains(#""aliases":["erin","erin-ipad"]"#) == true)
            #expect(bodies["erin-fast"]?.first?.contains(#""subscriber_attributes":{"$displayName":{"updated_at_ms":"#) == true)
        }
    }
}
