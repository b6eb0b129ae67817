import Foundation
import RedeemCore
import RedeemTestSupport
import Testing

@testable import RedeemStore

/// An offer claim's effects (`OfferClaimEffects`) rendered as sequential statements and as PostgreSQL's one statement
/// leave the same rows and give the same answer; the one statement undoes itself when what it rests on changed; the
/// cases it decides from its read (refusals, web claims, paid offers with their payment, anonymous claimants) take it.
@Suite struct OfferRedemptionFastPathCases {
    static let now = Fixture.now
    static let postgres = TestDatabases.postgresConfigured

    static func withStore(_ body: (SQLStore) async throws -> Void) async throws {
        try await TestDatabases.withStore(.postgres, body)
    }

    static func request(_ appID: String, _ code: String, by user: String, channel: OfferRedemptionChannel = .sdk) -> OfferCodeRedemptionRequest {
        var request = OfferCodeRedemptionRequest(appID: appID, code: code, claimant: Fixture.user(user), channel: channel, isSandbox: true, now: now)
        request.includeCustomerInfo = channel == .sdk
        if channel == .web {
            request.email = user + "@example.com"
            request.checkoutReference = "offer:claim-" + user
        }
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
            try await $0.query("SELECT CAST(COALESCE(SUM(used), 0) AS BIGINT) AS n FROM offer_quota_stripes WHERE app_id = \(appID)")
                .first?.int("n") ?? -1
        }
    }

    // MARK: - The two renderings of one value

    enum Case: String, CaseIterable, CustomTestStringConvertible {
        /// erin is known (an alias, an attribute, a purchase of coins), redeems a one-time code in the app.
        case knownInApp
        /// A new anonymous claimant redeems a custom code in the app.
        case anonymousCustomCode
        /// A web claim with its payment known, by a new claimant with an address.
        case paidWebClaim
        var testDescription: String { rawValue }
    }

    /// The app for `scenario` with two live endpoints, and the claim's effects as both paths build them (stripes tried
    /// from 0, so both renderings count on the same ones).
    static func prepare(_ store: SQLStore, _ scenario: Case, name: String) async throws -> OfferClaimEffects {
        let (app, _, codes) = try await Self.warmApp(store, name: name)
        var request: OfferCodeRedemptionRequest
        switch scenario {
        case .knownInApp:
            _ = try await store.grant(
                PurchaseGrant(appID: app.id, appUserID: Fixture.user("erin"), productID: "coins", purchaseDate: Self.now), idempotency: nil,
                now: Self.now)
            try await RedemptionFastPathCases.addAlias(store, app.id, to: "erin", "erin-ipad")
            _ = try await store.setAttributes(
                appID: app.id, appUserID: Fixture.user("erin"), changes: [.init(key: "$displayName", value: "Erin", updatedAt: Self.now)],
                fromBackend: false, now: Self.now)
            request = Self.request(app.id, codes[0], by: "erin")
        case .anonymousCustomCode:
            let offer = try await OfferCases.makeOffer(store, appID: app.id, name: "Spring", eligibility: [.new])
            _ = try await OfferCases.makeCustom(store, offer, code: "SPRING", cap: 40)
            request = Self.request(app.id, "spring", by: "$RCAnonymousID:0123456789abcdef0123456789abcdef")
        case .paidWebClaim:
            let paid = try await OfferCases.makeOffer(
                store, appID: app.id, name: "Paid", mode: .payUpFront, price: Price(amountMicros: 990_000, currency: "USD"))
            let (_, paidCodes) = try await OfferCases.makeBatch(store, paid, count: 1)
            request = Self.request(app.id, paidCodes[0], by: "web-buyer", channel: .web)
            request.payment = .init(price: Price(amountMicros: 990_000, currency: "USD"), storeTransactionID: "txn_paid_" + name)
            request.store = .rcBilling
        }
        for id in ["whe_a", "whe_b"] {
            try await store.createWebhookEndpoint(
                WebhookEndpoint(
                    id: id + app.id, appID: app.id, url: "https://example.com/\(id)", authorization: nil, signingSecret: "s", createdAt: Self.now))
        }
        // The warm-up's count on one stripe, wherever it landed at random.
        try await store.database.transaction {
            try await $0.query("UPDATE offer_quota_stripes SET used = CASE WHEN stripe = 15 THEN 1 ELSE 0 END WHERE app_id = \(app.id)")
        }
        request.now = Self.now.addingTimeInterval(60)
        let claim = request
        let facts = try #require(try await store.database.read { try await SQLStore.offerFacts(claim, on: $0) })
        guard case .success(var effects)? = try SQLStore.offerClaimEffects(claim, facts: facts) else {
            throw TestSetupError("the claim was not granted")
        }
        effects.quota.first = 0
        if case .customCodeUse(let id, let limit, _) = effects.claim { effects.claim = .customCodeUse(codeID: id, limit: limit, first: 0) }
        return effects
    }

    /// What the claim touched in its app, as text, every generated ID replaced by its prefix and its rank of appearance.
    static func dump(_ store: SQLStore, _ effects: OfferClaimEffects) async throws -> [String] {
        let app = effects.appID
        let tables: [(String, [String], SQL)] = [
            ("customers", ["id", "original_app_user_id", "first_seen", "last_seen"], "WHERE app_id = \(app) ORDER BY original_app_user_id"),
            ("customer_aliases", ["app_user_id", "customer_id", "created_at"], "WHERE app_id = \(app) ORDER BY app_user_id"),
            (
                "purchases",
                [
                    "id", "customer_id", "product_id", "store", "is_sandbox", "purchase_date", "expires_date", "period_type", "store_transaction_id",
                    "price_amount_micros", "price_currency", "email", "checkout_reference", "offer_id", "offer_code_ref_name", "offer_discount_type",
                    "offer_period", "created_at",
                ], "WHERE app_id = \(app) ORDER BY created_at, product_id"
            ),
            (
                "offer_redemptions",
                [
                    "id", "offer_id", "customer_id", "app_user_id", "code_type", "batch_id", "custom_code_id", "purchase_id", "channel", "created_at",
                    "email",
                ],
                "WHERE app_id = \(app) ORDER BY created_at, app_user_id"
            ),
            (
                "webhook_deliveries", ["id", "endpoint_id", "event_id", "event_type", "body", "transaction_id", "created_at", "next_attempt_at"],
                "WHERE app_id = \(app) ORDER BY created_at, endpoint_id"
            ),
            ("offer_quota_stripes", ["quarter", "stripe", "used"], "WHERE app_id = \(app) ORDER BY quarter, stripe"),
            (
                "offer_custom_code_stripes", ["stripe", "used"],
                "WHERE code_id IN (SELECT id FROM offer_custom_codes WHERE app_id = \(app)) ORDER BY code_id, stripe"
            ),
        ]
        var lines: [String] = []
        for (table, columns, condition) in tables {
            let rows = try await store.database.read {
                try await $0.query("SELECT \(unsafeRaw: columns.joined(separator: ", ")) FROM \(unsafeRaw: table) \(sql: condition)")
            }
            lines += rows.map { row in table + ": " + columns.map { "\($0)=\(row[$0])" }.joined(separator: " ") }
        }
        if case .oneTimeCode(let hash) = effects.claim {
            let used = try await store.database.read {
                try await $0.query("SELECT redeemed_by, redeemed_at FROM offer_codes WHERE code_hash = \(hash)")
            }
            lines += used.map { "offer_codes: \($0["redeemed_by"]) \($0["redeemed_at"])" }
        }
        return normalized(lines, appID: app)
    }

    static func normalized(_ lines: [String], appID: String) -> [String] {
        var names: [String: String] = [appID: "APP"]
        let pattern = try! NSRegularExpression(pattern: #"\b(?:[a-z]+_[0-9a-f]{28}|txn_paid_[A-Za-z]+|evt_[A-Za-z0-9_-]{16})"#)
        return lines.map { line in
            var line = line.replacingOccurrences(of: appID, with: "APP")
            for match in pattern.matches(in: line, range: NSRange(line.startIndex..., in: line)).reversed() {
                let range = Range(match.range, in: line)!
                let id = String(line[range])
                let prefix = id.prefix { $0 != "_" }
                let name = names[id] ?? "\(prefix)#\(names.count)"
                names[id] = name
                line.replaceSubrange(range, with: name)
            }
            return line
        }
    }

    @Test(.enabled(if: postgres, "needs REDEEM_TEST_POSTGRES_URL"), arguments: Case.allCases)
    func bothRenderingsLeaveTheSameRowsAndAnswer(_ scenario: Case) async throws {
        try await Self.withStore { store in
            let sequential = try await Self.prepare(store, scenario, name: "Sequential")
            let single = try await Self.prepare(store, scenario, name: "Single")
            let answer = try await store.database.transaction {
                try await SQLStore.applyOfferClaim(sequential, answering: true, on: $0)
            }
            let rows = try await store.database.read { try await $0.query(try SQLStore.offerClaimStatement(single)) }
            let statementAnswer = try SQLStore.snapshot(appID: single.appID, rows: rows)
            let (left, right) = (try await Self.dump(store, sequential), try await Self.dump(store, single))
            #expect(left == right)
            #expect(left.filter { $0.hasPrefix("webhook_deliveries") }.count == 2, "one event, to each endpoint")
            #expect(left.contains { $0.hasPrefix("offer_redemptions") && $0.contains(#"purchase_id=text("pur#"#) })
            // The answer: the claimant's rows, purchases and products as both read them.
            let (a, b) = (try #require(answer), try #require(statementAnswer))
            #expect(a.customer.originalAppUserID == b.customer.originalAppUserID && a.customer.lastSeen == b.customer.lastSeen)
            #expect(a.purchases.map(\.productID) == b.purchases.map(\.productID))
            // (The twin apps' offers differ only by ID.)
            let terms = { (purchases: [Purchase]) in purchases.map { $0.offer.map { [$0.referenceName, $0.discountType.rawValue, $0.period] } } }
            #expect(terms(a.purchases) == terms(b.purchases))
            #expect(a.products.mapValues(\.entitlements) == b.products.mapValues(\.entitlements))
            #expect(a.purchases.last?.id == sequential.purchase.id && b.purchases.last?.id == single.purchase.id)
        }
    }

    // MARK: - What the one statement re-checks

    /// The statement asserts that its claim took: a code taken after the facts were read leaves nothing of it.
    @Test(.enabled(if: postgres, "needs REDEEM_TEST_POSTGRES_URL")) func aCodeTakenMeanwhileUndoesTheWholeStatement() async throws {
        try await Self.withStore { store in
            let (app, _, codes) = try await Self.warmApp(store)
            let statement = try await Self.statement(store, Self.request(app.id, codes[0], by: "late"))
            #expect(OfferCases.failure(try await store.redeemOfferCode(Self.request(app.id, codes[0], by: "early"))) == nil)
            await #expect { try await store.database.read { try await $0.query(statement) } } throws: { ($0 as? StoreError)?.isRaceLost == true }
            #expect(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("late")) == nil)
            #expect(try await Self.quotaUsed(store, app.id) == 2)
            #expect(try await store.offerRedemptions(appID: app.id).contains { $0.appUserID == "late" } == false)
        }
    }

    /// An endpoint added after the read: the deliveries would miss it, so nothing stays and the transactional path
    /// (which queues to it) decides.
    @Test(.enabled(if: postgres, "needs REDEEM_TEST_POSTGRES_URL")) func anEndpointAddedMeanwhileUndoesTheWholeStatement() async throws {
        try await Self.withStore { store in
            let (app, _, codes) = try await Self.warmApp(store)
            let statement = try await Self.statement(store, Self.request(app.id, codes[0], by: "late"))
            try await store.createWebhookEndpoint(
                WebhookEndpoint(
                    id: "whe_new", appID: app.id, url: "https://example.com/n", authorization: nil, signingSecret: "s", createdAt: Self.now))
            await #expect { try await store.database.read { try await $0.query(statement) } } throws: { ($0 as? StoreError)?.isRaceLost == true }
            #expect(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("late")) == nil)
            #expect(OfferCases.failure(try await store.redeemOfferCode(Self.request(app.id, codes[0], by: "late"))) == nil)
            let queued = try await store.database.read { try await $0.query("SELECT id FROM webhook_deliveries WHERE app_id = \(app.id)") }
            #expect(queued.count == 1)
        }
    }

    /// A stripe found full or held by another transaction is passed over, never waited for: the custom code's use and
    /// the quota's count land on the next stripes in order with room.
    @Test(.enabled(if: postgres, "needs REDEEM_TEST_POSTGRES_URL")) func aFullOrHeldStripeIsPassedOverNotWaitedFor() async throws {
        try await Self.withStore { store in
            let (app, offer, _) = try await Self.warmApp(store)
            let code = try await OfferCases.makeCustom(store, offer, code: "CROWD", cap: 32)
            let request = Self.request(app.id, "crowd", by: "late")
            let facts = try #require(try await store.database.read { try await SQLStore.offerFacts(request, on: $0) })
            let statement = try await Self.statement(store, request)
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
            #expect(facts.codeStripes?[0] == 0, "stripe 0 had room when the facts were read")
            #expect(try await Self.stripesUsed(store, "offer_custom_code_stripes", "code_id = \(code.id)").prefix(3) == [2, 0, 1])
            var quotaAfter = quotaBefore
            quotaAfter[1] += 1
            #expect(try await Self.stripesUsed(store, "offer_quota_stripes", "app_id = \(app.id) AND quarter = \(quota)") == quotaAfter)
            #expect(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("late")) != nil)
        }
    }

    /// When every stripe with room is full or held, nothing of the statement stays; the transactional path, which
    /// waits for a held stripe, then counts the use.
    @Test(.enabled(if: postgres, "needs REDEEM_TEST_POSTGRES_URL")) func everyStripeWithRoomFullOrHeldUndoesTheWholeStatement() async throws {
        try await Self.withStore { store in
            let (app, offer, _) = try await Self.warmApp(store)
            let code = try await OfferCases.makeCustom(store, offer, code: "PAIR", cap: 2)  // stripes 0 and 1, one use each
            let statement = try await Self.statement(store, Self.request(app.id, "pair", by: "late"))
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

    /// The one statement for `request` as the fast path builds it, stripes tried from 0.
    static func statement(_ store: SQLStore, _ request: OfferCodeRedemptionRequest) async throws -> SQL {
        let facts = try #require(try await store.database.read { try await SQLStore.offerFacts(request, on: $0) })
        guard case .success(var effects)? = try SQLStore.offerClaimEffects(request, facts: facts) else { throw TestSetupError("refused") }
        effects.quota.first = 0
        if case .customCodeUse(let id, let limit, _) = effects.claim { effects.claim = .customCodeUse(codeID: id, limit: limit, first: 0) }
        return try SQLStore.offerClaimStatement(effects)
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

    // MARK: - Which cases the one statement takes

    /// Refusals are answered from the read, writing nothing (as the transactional path's rollback leaves nothing);
    /// a web claim and a paid offer with its payment are granted by the one statement.
    @Test(.enabled(if: postgres, "needs REDEEM_TEST_POSTGRES_URL")) func refusalsWebClaimsAndPaidOffersTakeTheOneStatement() async throws {
        try await Self.withStore { store in
            let (app, _, codes) = try await Self.warmApp(store, count: 4)
            let paid = try await OfferCases.makeOffer(store, appID: app.id, mode: .payUpFront, price: Price(amountMicros: 990_000, currency: "USD"))
            let (_, paidCodes) = try await OfferCases.makeBatch(store, paid, count: 1)
            try await OfferCases.subscribe(store, app.id, "subscriber", start: Self.now)
            let customersBefore = try await Self.count(store, "customers", app.id)
            #expect(try await Self.fastFailure(store, Self.request(app.id, paidCodes[0], by: "payer")) == .paymentRequired)
            #expect(try await Self.fastFailure(store, Self.request(app.id, codes[0], by: "subscriber")) == .notEligible)
            #expect(try await Self.fastFailure(store, Self.request(app.id, "NOPE-NOT-A-CODE", by: "x")) == .invalid)
            #expect(try await Self.fastFailure(store, Self.request(app.id, "!!", by: "x")) == .invalid)
            #expect(try await Self.count(store, "customers", app.id) == customersBefore, "a refusal creates no claimant")
            #expect(try await Self.quotaUsed(store, app.id) == 1)
            // A web claim, then the same address again (on another anonymous claimant): refused as claimed before.
            let web = try #require(try await store.fastOfferRedemption(Self.request(app.id, codes[0], by: "web", channel: .web))).get()
            #expect(try await store.purchase(appID: app.id, checkoutReference: "offer:claim-web")?.id == web.purchase.id)
            var again = Self.request(app.id, codes[1], by: "web2", channel: .web)
            again.email = "WEB@example.com"
            #expect(try await Self.fastFailure(store, again) == .alreadyRedeemed)
            var payment = Self.request(app.id, paidCodes[0], by: "buyer", channel: .web)
            payment.payment = .init(price: Price(amountMicros: 990_000, currency: "USD"), storeTransactionID: "txn_buyer")
            let bought = try #require(try await store.fastOfferRedemption(payment)).get()
            #expect(bought.purchase.price == Price(amountMicros: 990_000, currency: "USD") && bought.purchase.storeTransactionID == "txn_buyer")
            #expect(try await Self.quotaUsed(store, app.id) == 3)
            let records = try await store.offerRedemptions(appID: app.id).filter { $0.channel == "web" }
            #expect(records.count == 2)
        }
    }

    static func fastFailure(_ store: SQLStore, _ request: OfferCodeRedemptionRequest) async throws -> OfferRedemptionFailure? {
        guard case .failure(let failure)? = try await store.fastOfferRedemption(request) else { return nil }
        return failure
    }

    static func count(_ store: SQLStore, _ table: String, _ appID: String) async throws -> Int64 {
        try await store.database.read {
            try await $0.query("SELECT COUNT(*) AS n FROM \(unsafeRaw: table) WHERE app_id = \(appID)").first?.int("n") ?? -1
        }
    }

    /// In the app, the one statement's Customer Info is the one the claimant then reads.
    @Test(.enabled(if: postgres, "needs REDEEM_TEST_POSTGRES_URL")) func theAnswerIsTheClaimantsCustomerInfo() async throws {
        try await Self.withStore { store in
            let (app, offer, codes) = try await Self.warmApp(store)
            for user in ["erin", "$RCAnonymousID:00112233445566778899aabbccddeeff"] {
                let code = user == "erin" ? codes[0] : codes[1]
                let redemption = try #require(try await store.fastOfferRedemption(Self.request(app.id, code, by: user))).get()
                #expect(redemption.kind == .initialBuy && redemption.purchase.periodType == .trial)
                #expect(
                    redemption.purchase.offer
                        == PurchaseOffer(offerID: offer.id, referenceName: "Winter trial", discountType: .freeTrial, period: "P1M"))
                #expect(redemption.customerInfo == (try await store.customerInfo(appID: app.id, appUserID: Fixture.user(user), now: Self.now)))
            }
            // The code is used: by anyone, again, it is refused, from the read.
            #expect(try await Self.fastFailure(store, Self.request(app.id, codes[0], by: "bob")) == .alreadyRedeemed)
        }
    }

    /// Counted, not guessed: a claim in the app (a known or an anonymous claimant), on the web, and a refusal each take
    /// at most two round trips in the store (one read, one statement); the HTTP route adds the rate limit's upsert.
    @Test(.enabled(if: postgres, "needs REDEEM_TEST_POSTGRES_URL")) func aClaimTakesAtMostThreeRoundTripsWithTheRateLimit() async throws {
        try await Self.withStore { store in
            let (app, _, codes) = try await Self.warmApp(store, count: 4)
            _ = try await store.grant(
                PurchaseGrant(appID: app.id, appUserID: Fixture.user("erin"), productID: "coins", purchaseDate: Self.now), idempotency: nil,
                now: Self.now)
            let counter = RoundTripCounter(store.database)
            let counted = SQLStore(database: counter)
            let claims = [
                ("known in the app", Self.request(app.id, codes[0], by: "erin"), 2),
                ("anonymous in the app", Self.request(app.id, codes[1], by: "$RCAnonymousID:00112233445566778899aabbccddeeff"), 2),
                ("on the web", Self.request(app.id, codes[2], by: "$RCAnonymousID:ffeeddccbbaa99887766554433221100", channel: .web), 2),
                ("refused", Self.request(app.id, codes[0], by: "bob"), 1),
            ]
            for (name, request, most) in claims {
                counter.reset()
                let result = try await counted.redeemOfferCode(request)
                #expect((OfferCases.failure(result) == nil) == (name != "refused"), "\(name)")
                #expect(counter.count <= most, "\(name): \(counter.count) round trips in the store, and the rate limit's one")
            }
        }
    }

    /// Rows PostgreSQL gives as JSON read back as the engine's own values.
    @Test func aJSONRowReadsLikeARow() throws {
        let row = try SQLRow(json: #"{"id": "p1", "n": 1700000000000, "price": 9.99, "flag": true, "none": null}"#)
        #expect(try row.string("id") == "p1" && row.int("n") == 1_700_000_000_000 && row.bool("flag"))
        #expect(row["price"] == .double(9.99) && row["none"] == .null)
    }
}
