import Foundation
import RedeemCore
import RedeemStore
import Testing

enum OfferCases {
    static let now = Fixture.now
    static let day: TimeInterval = 86_400

    static func makeOffer(
        _ store: SQLStore, appID: String, product: String = "monthly", name: String = UUID().uuidString.prefix(8).description,
        mode: OfferPaymentMode = .freeTrial, duration: OfferDuration? = .oneMonth, periods: Int = 1, price: Price? = nil,
        eligibility: OfferEligibility = [.new, .existing, .expired], startsAt: Date? = nil, endsAt: Date? = nil, active: Bool = true
    ) async throws -> Offer {
        let offer = Offer(
            id: Identifier.make(prefix: "ofr"), appID: appID, productID: product, referenceName: name, paymentMode: mode,
            duration: duration, periods: periods, price: price, eligibility: eligibility, startsAt: startsAt, endsAt: endsAt,
            isActive: active, createdAt: now
        )
        try offer.validate(for: try await store.product(appID: appID, id: product))
        try await store.createOffer(offer)
        return offer
    }

    /// A batch of `count` codes for `offer`; returns the plaintext codes.
    static func makeBatch(_ store: SQLStore, _ offer: Offer, count: Int = 3, expiresAt: Date? = nil) async throws -> (OfferCodeBatch, [String]) {
        let codes = OfferCode.generate(count: count)
        let batch = OfferCodeBatch(
            id: Identifier.make(prefix: "batch"), appID: offer.appID, offerID: offer.id, count: count,
            expiresAt: expiresAt ?? now.addingTimeInterval(30 * day), createdAt: now)
        try await store.createCodeBatch(batch, codeHashes: codes.map(OfferCode.storedHash).sorted(), progress: { _ in })
        return (batch, codes)
    }

    static func makeCustom(_ store: SQLStore, _ offer: Offer, code: String, cap: Int, expiresAt: Date? = nil) async throws -> CustomOfferCode {
        let custom = CustomOfferCode(
            id: Identifier.make(prefix: "cc"), appID: offer.appID, offerID: offer.id, code: OfferCode.normalizeCustom(code)!,
            maxRedemptions: cap, expiresAt: expiresAt, createdAt: now)
        try await store.createCustomCode(custom)
        return custom
    }

    static func redeem(
        _ store: SQLStore, _ appID: String, _ code: String, by user: String, at date: Date = now, payment: Price? = nil
    ) async throws -> Result<OfferCodeRedemption, OfferRedemptionFailure> {
        try await store.redeemOfferCode(
            OfferCodeRedemptionRequest(
                appID: appID, code: code, claimant: Fixture.user(user), channel: .sdk, isSandbox: true,
                payment: payment.map { .init(price: $0) }, now: date
            ))
    }

    static func failure(_ result: Result<OfferCodeRedemption, OfferRedemptionFailure>) -> OfferRedemptionFailure? {
        if case .failure(let failure) = result { failure } else { nil }
    }

    /// An app with the given quarterly quota and one offer's batch of `codes` one-time codes.
    static func quotaSetUp(_ store: SQLStore, quota: Int, codes count: Int) async throws -> (App, [String]) {
        var app = try await setUp(store)
        app.offerCodeQuotaPerQuarter = quota
        try await store.updateApp(app)
        let offer = try await makeOffer(store, appID: app.id)
        let (_, codes) = try await makeBatch(store, offer, count: count, expiresAt: now.addingTimeInterval(60 * day))
        return (app, codes)
    }

    static func setUp(_ store: SQLStore) async throws -> App {
        let app = try await Fixture.app(store)
        try await Fixture.catalog(store, appID: app.id)
        return app
    }

    /// `user` subscribed to monthly from `start` for one month.
    static func subscribe(_ store: SQLStore, _ appID: String, _ user: String, product: String = "monthly", start: Date) async throws {
        _ = try await store.grant(
            PurchaseGrant(appID: appID, appUserID: Fixture.user(user), productID: product, purchaseDate: start),
            idempotency: nil, now: start)
    }

    static let all: [StoreCase] = [
        StoreCase("a one-time code grants the offer once, with its period and reference name") { store in
            let app = try await setUp(store)
            let offer = try await makeOffer(store, appID: app.id, name: "Winter trial", eligibility: [.new])
            let (_, codes) = try await makeBatch(store, offer)
            // Typed in lower case, grouped with spaces and dashes.
            let typed = OfferCode.grouped(codes[0]).lowercased().replacingOccurrences(of: "-", with: " - ")
            guard case .success(let redemption) = try await redeem(store, app.id, typed, by: "alice") else {
                Issue.record("not redeemed")
                return
            }
            #expect(redemption.kind == .initialBuy)
            #expect(redemption.purchase.periodType == .trial)
            #expect(redemption.purchase.expiresDate == ISO8601Period(months: 1).advance(now))
            #expect(
                redemption.purchase.offer == PurchaseOffer(offerID: offer.id, referenceName: "Winter trial", discountType: .freeTrial, period: "P1M"))
            let info = try await store.customerInfo(appID: app.id, appUserID: Fixture.user("alice"), now: now)
            #expect(info.subscriber.entitlements["pro"] != nil)
            #expect(info.subscriber.subscriptions["monthly"]?.offer?.referenceName == "Winter trial")
            // The same code again, by anyone: already redeemed. Unknown and malformed codes: invalid.
            #expect(failure(try await redeem(store, app.id, codes[0], by: "bob")) == .alreadyRedeemed)
            #expect(failure(try await redeem(store, app.id, codes[0], by: "alice")) == .alreadyRedeemed)
            #expect(failure(try await redeem(store, app.id, OfferCode.generate(), by: "bob")) == .invalid)
            #expect(failure(try await redeem(store, app.id, "0O1IL-not-a-code!", by: "bob")) == .invalid)
            // Another app's code is invalid here.
            let other = try await Fixture.app(store, name: "Other")
            try await Fixture.catalog(store, appID: other.id)
            #expect(failure(try await redeem(store, other.id, codes[1], by: "bob")) == .invalid)
        },
        StoreCase("expired, inactive and not-yet-valid codes and offers are refused without using the code") { store in
            let app = try await setUp(store)
            let live = try await makeOffer(store, appID: app.id)
            let (batch, codes) = try await makeBatch(store, live, count: 2, expiresAt: now.addingTimeInterval(10 * day))
            #expect(failure(try await redeem(store, app.id, codes[0], by: "a", at: now.addingTimeInterval(11 * day))) == .expired)
            _ = try await store.setCodeBatchActive(appID: app.id, id: batch.id, active: false)
            #expect(failure(try await redeem(store, app.id, codes[0], by: "a")) == .inactive)
            _ = try await store.setCodeBatchActive(appID: app.id, id: batch.id, active: true)
            _ = try await store.setOfferActive(appID: app.id, id: live.id, active: false)
            #expect(failure(try await redeem(store, app.id, codes[0], by: "a")) == .inactive)
            _ = try await store.setOfferActive(appID: app.id, id: live.id, active: true)
            #expect(try await redeem(store, app.id, codes[0], by: "a").isSuccess)

            let window = try await makeOffer(store, appID: app.id, startsAt: now.addingTimeInterval(day), endsAt: now.addingTimeInterval(5 * day))
            let (_, windowCodes) = try await makeBatch(store, window, count: 1)
            #expect(failure(try await redeem(store, app.id, windowCodes[0], by: "b")) == .inactive)
            #expect(failure(try await redeem(store, app.id, windowCodes[0], by: "b", at: now.addingTimeInterval(6 * day))) == .expired)
            #expect(try await redeem(store, app.id, windowCodes[0], by: "b", at: now.addingTimeInterval(2 * day)).isSuccess)
        },
        StoreCase("custom codes: unique per app regardless of case, capped, switchable, expiring") { store in
            let app = try await setUp(store)
            let first = try await makeOffer(store, appID: app.id, product: "lifetime", duration: nil, eligibility: [.new])
            let summer = try await makeCustom(store, first, code: "Summer25", cap: 2)
            #expect(summer.code == "SUMMER25")
            await #expect(throws: StoreError.self) { _ = try await makeCustom(store, first, code: "summer-25", cap: 1) }
            #expect(try await redeem(store, app.id, "summer25", by: "a").isSuccess)
            #expect(try await redeem(store, app.id, "SUMMER 25", by: "b").isSuccess)
            #expect(failure(try await redeem(store, app.id, "SUMMER25", by: "c")) == .exhausted)
            #expect(try await store.customCodes(appID: app.id, offerID: nil).first?.redemptionCount == 2)

            let second = try await makeOffer(store, appID: app.id, product: "lifetime", duration: nil, eligibility: [.new])
            let off = try await makeCustom(store, second, code: "OFFNOW", cap: 5)
            _ = try await store.setCustomCodeActive(appID: app.id, id: off.id, active: false)
            #expect(failure(try await redeem(store, app.id, "offnow", by: "d")) == .inactive)
            _ = try await makeCustom(store, second, code: "SOON", cap: 5, expiresAt: now.addingTimeInterval(day))
            #expect(failure(try await redeem(store, app.id, "soon", by: "d", at: now.addingTimeInterval(2 * day))) == .expired)
        },
        StoreCase("one redemption per customer and offer, enforced by the database") { store in
            let app = try await setUp(store)
            let offer = try await makeOffer(store, appID: app.id)
            _ = try await makeCustom(store, offer, code: "FIRST", cap: 10)
            _ = try await makeCustom(store, offer, code: "SECOND", cap: 10)
            #expect(try await redeem(store, app.id, "FIRST", by: "alice").isSuccess)
            #expect(failure(try await redeem(store, app.id, "SECOND", by: "alice")) == .alreadyRedeemed)
            // Aliases are the same customer.
            _ = try await store.alias(appID: app.id, Fixture.user("alice-phone"), into: Fixture.user("alice"), now: now)
            #expect(failure(try await redeem(store, app.id, "SECOND", by: "alice-phone")) == .alreadyRedeemed)
            // The constraint itself, below the store's check.
            let customer = try #require(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("alice")))
            await #expect(throws: StoreError.self) {
                try await store.database.transaction { connection in
                    try await connection.query(
                        """
                        INSERT INTO offer_redemptions (id, app_id, offer_id, customer_id, app_user_id, code_type, channel, created_at)
                        VALUES ('dup', \(app.id), \(offer.id), \(customer.id), 'alice', 'custom', 'sdk', \(now))
                        """)
                }
            }
            #expect(try await store.customCodes(appID: app.id, offerID: offer.id).map(\.redemptionCount).sorted() == [0, 1])
        },
        StoreCase("one customer redeeming at once from several devices: one success, the rest already redeemed") { store in
            let app = try await setUp(store)
            let offer = try await makeOffer(store, appID: app.id)
            _ = try await makeCustom(store, offer, code: "TWICE", cap: 100)
            let results = try await withThrowingTaskGroup(of: Result<OfferCodeRedemption, OfferRedemptionFailure>.self) { group in
                for _ in 0..<10 { group.addTask { try await redeem(store, app.id, "TWICE", by: "dana") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let successes = results.filter(\.isSuccess).count
            let refusals = results.compactMap(failure)
            #expect(successes == 1)
            #expect(refusals == Array(repeating: .alreadyRedeemed, count: 9))
            #expect(try await store.customCodes(appID: app.id, offerID: offer.id).map(\.redemptionCount) == [1])
        },
        StoreCase("eligibility: new, existing and expired customers, alone and mixed") { store in
            let app = try await setUp(store)
            let cases: [(OfferEligibility, [String: Bool])] = [
                ([.new], ["fresh": true, "current": false, "lapsed": false]),
                ([.existing], ["fresh": false, "current": true, "lapsed": false]),
                ([.expired], ["fresh": false, "current": false, "lapsed": true]),
                ([.new, .expired], ["fresh": true, "current": false, "lapsed": true]),
                ([.existing, .expired], ["fresh": false, "current": true, "lapsed": true]),
            ]
            for (index, (eligibility, expected)) in cases.enumerated() {
                // Fresh customers per case: a redemption changes a customer's standing.
                try await subscribe(store, app.id, "current-\(index)", start: now.addingTimeInterval(-10 * day))
                try await subscribe(store, app.id, "lapsed-\(index)", start: now.addingTimeInterval(-90 * day))
                let offer = try await makeOffer(store, appID: app.id, eligibility: eligibility)
                _ = try await makeCustom(store, offer, code: "ELIG\(index)", cap: 10)
                for (user, allowed) in expected.sorted(by: { $0.key < $1.key }) {
                    let result = try await redeem(store, app.id, "ELIG\(index)", by: "\(user)-\(index)")
                    #expect(result.isSuccess == allowed, "\(eligibility.names) for \(user): \(result)")
                    if case .failure(let failure) = result { #expect(failure == .notEligible) }
                }
            }
        },
        StoreCase("an existing subscriber's offer follows the current period; a lapsed one resubscribes") { store in
            let app = try await setUp(store)
            let start = now.addingTimeInterval(-10 * day)
            try await subscribe(store, app.id, "current", start: start)
            try await subscribe(store, app.id, "lapsed", start: now.addingTimeInterval(-90 * day))
            let offer = try await makeOffer(
                store, appID: app.id, mode: .payAsYouGo, periods: 3, price: Price(amountMicros: 990_000, currency: "USD"),
                eligibility: [.existing, .expired])
            _ = try await makeCustom(store, offer, code: "THREEMONTHS", cap: 10)
            #expect(failure(try await redeem(store, app.id, "THREEMONTHS", by: "current")) == .paymentRequired)
            let price = Price(amountMicros: 990_000, currency: "USD")
            guard case .success(let extended) = try await redeem(store, app.id, "THREEMONTHS", by: "current", payment: price) else {
                Issue.record("not redeemed")
                return
            }
            #expect(extended.kind == .extend)
            #expect(extended.purchase.periodType == .intro)
            #expect(extended.purchase.expiresDate == ISO8601Period(months: 3).advance(ISO8601Period(months: 1).advance(start)))
            #expect(extended.purchase.offer?.period == "P3M")
            guard case .success(let back) = try await redeem(store, app.id, "THREEMONTHS", by: "lapsed", payment: price) else {
                Issue.record("not redeemed")
                return
            }
            #expect(back.kind == .resubscribe)
        },
        StoreCase("a lower level of the group is refused as a downgrade; a higher one is an upgrade") { store in
            let app = try await setUp(store)
            for (id, level) in [("premium", 1), ("basic", 2)] {
                try await store.createProduct(
                    Product(
                        appID: app.id, id: id, type: .subscription, period: "P1M", displayName: nil,
                        entitlements: [id], subscriptionGroup: "tiers", groupLevel: level, createdAt: now))
            }
            try await subscribe(store, app.id, "rich", product: "premium", start: now)
            try await subscribe(store, app.id, "thrifty", product: "basic", start: now)
            let down = try await makeOffer(store, appID: app.id, product: "basic", eligibility: [.existing])
            _ = try await makeCustom(store, down, code: "BASICDEAL", cap: 10)
            #expect(failure(try await redeem(store, app.id, "BASICDEAL", by: "rich")) == .wouldDowngrade)
            // On the web, as in the App Store, the downgrade is accepted and starts when the higher level ends.
            let web = try await store.redeemOfferCode(
                OfferCodeRedemptionRequest(
                    appID: app.id, code: "BASICDEAL", claimant: Fixture.user("rich"), channel: .web, isSandbox: false, now: now
                ))
            guard case .success(let downgrade) = web else {
                Issue.record("web downgrade refused: \(web)")
                return
            }
            #expect(downgrade.kind == .downgrade)
            #expect(downgrade.purchase.expiresDate == ISO8601Period(months: 1).advance(ISO8601Period(months: 1).advance(now)))
            let up = try await makeOffer(store, appID: app.id, product: "premium", eligibility: [.existing])
            _ = try await makeCustom(store, up, code: "PREMIUMDEAL", cap: 10)
            guard case .success(let upgrade) = try await redeem(store, app.id, "PREMIUMDEAL", by: "thrifty") else {
                Issue.record("refused")
                return
            }
            #expect(upgrade.kind == .upgrade)
            // Group membership decides "new": the premium customer is not new to the basic tier.
            let newOnly = try await makeOffer(store, appID: app.id, product: "basic", eligibility: [.new])
            _ = try await makeCustom(store, newOnly, code: "NEWBASIC", cap: 10)
            #expect(failure(try await redeem(store, app.id, "NEWBASIC", by: "rich")) == .notEligible)
        },
        StoreCase("one-time products: only for customers who never bought it, without offer fields in Customer Info") { store in
            let app = try await setUp(store)
            let offer = try await makeOffer(store, appID: app.id, product: "lifetime", duration: nil, eligibility: [.new])
            _ = try await makeCustom(store, offer, code: "FREELIFE", cap: 10)
            _ = try await store.grant(
                PurchaseGrant(appID: app.id, appUserID: Fixture.user("owner"), productID: "lifetime", purchaseDate: now),
                idempotency: nil, now: now)
            #expect(failure(try await redeem(store, app.id, "FREELIFE", by: "owner")) == .notEligible)
            guard case .success(let redemption) = try await redeem(store, app.id, "FREELIFE", by: "newbie") else {
                Issue.record("refused")
                return
            }
            #expect(redemption.kind == .oneTime)
            #expect(redemption.purchase.expiresDate == nil)
            let info = try await store.customerInfo(appID: app.id, appUserID: Fixture.user("newbie"), now: now)
            #expect(info.subscriber.nonSubscriptions["lifetime"]?.count == 1)
            #expect(info.subscriber.subscriptions.isEmpty)
        },
        StoreCase("the quarterly quota is enforced atomically and a refused redemption uses nothing") { store in
            let (app, codes) = try await quotaSetUp(store, quota: 2, codes: 3)
            #expect(try await redeem(store, app.id, codes[0], by: "a").isSuccess)
            #expect(try await redeem(store, app.id, codes[1], by: "b").isSuccess)
            #expect(failure(try await redeem(store, app.id, codes[2], by: "c")) == .quotaReached)
            var usage = try await store.offerCodeUsage(appID: app.id, now: now)
            #expect(usage.used == 2 && usage.quota == 2 && usage.quarter == "2026-Q2")
            #expect(try await store.customerInfo(appID: app.id, appUserID: Fixture.user("c"), now: now).subscriber.entitlements.isEmpty)
            // A new quarter starts from zero; the refused code was not used.
            let nextQuarter = ISODate.parse("2026-07-01T00:00:00Z")!
            #expect(try await redeem(store, app.id, codes[2], by: "c", at: nextQuarter).isSuccess)
            usage = try await store.offerCodeUsage(appID: app.id, now: nextQuarter)
            #expect(usage.used == 1 && usage.quarter == "2026-Q3")
            #expect(usage.offers.first?.redemptions == 3)
        },
        StoreCase("the striped quota is exact under concurrency: of 40 redemptions at once against a quota of 25, 25 succeed") { store in
            let (app, codes) = try await quotaSetUp(store, quota: 25, codes: 40)
            let appID = app.id
            let results = try await withThrowingTaskGroup(of: Bool.self) { group in
                for (n, code) in codes.enumerated() { group.addTask { try await redeem(store, appID, code, by: "racer-\(n)").isSuccess } }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.filter { $0 }.count == 25)
            #expect(try await store.offerCodeUsage(appID: app.id, now: now).used == 25)
        },
        StoreCase("a quota lowered below what was used refuses the next redemption; raised again, it allows it") { store in
            let (created, codes) = try await quotaSetUp(store, quota: 100, codes: 8)
            var app = created
            for n in 0..<5 { #expect(try await redeem(store, app.id, codes[n], by: "early-\(n)").isSuccess) }
            app.offerCodeQuotaPerQuarter = 3
            try await store.updateApp(app)
            #expect(failure(try await redeem(store, app.id, codes[5], by: "late-5")) == .quotaReached)
            #expect(try await store.offerCodeUsage(appID: app.id, now: now).used == 5)
            app.offerCodeQuotaPerQuarter = 6
            try await store.updateApp(app)
            #expect(try await redeem(store, app.id, codes[6], by: "late-6").isSuccess)
            #expect(failure(try await redeem(store, app.id, codes[7], by: "late-7")) == .quotaReached)
            #expect(try await store.offerCodeUsage(appID: app.id, now: now).used == 6)
        },
        StoreCase("a subscription product takes at most 10 active offers") { store in
            let app = try await setUp(store)
            var offers: [Offer] = []
            for _ in 0..<10 { offers.append(try await makeOffer(store, appID: app.id)) }
            await #expect(throws: StoreError.self) { _ = try await makeOffer(store, appID: app.id) }
            let parked = try await makeOffer(store, appID: app.id, active: false)
            await #expect(throws: StoreError.self) { _ = try await store.setOfferActive(appID: app.id, id: parked.id, active: true) }
            _ = try await store.setOfferActive(appID: app.id, id: offers[0].id, active: false)
            #expect(try await store.setOfferActive(appID: app.id, id: parked.id, active: true).isActive)
            // One-time products have no such limit.
            for _ in 0..<11 { _ = try await makeOffer(store, appID: app.id, product: "lifetime", duration: nil, eligibility: [.new]) }
            #expect(try await store.offers(appID: app.id, productID: "monthly").filter(\.isActive).count == 10)
        },
        StoreCase("the report lists every redemption with its code type and custom code") { store in
            let app = try await setUp(store)
            let offer = try await makeOffer(store, appID: app.id, name: "Spring")
            let (batch, codes) = try await makeBatch(store, offer, count: 2)
            _ = try await makeCustom(store, offer, code: "SPRING", cap: 5)
            #expect(try await redeem(store, app.id, codes[0], by: "a").isSuccess)
            #expect(try await redeem(store, app.id, "spring", by: "b").isSuccess)
            let records = try await store.offerRedemptions(appID: app.id, offerID: nil)
            #expect(records.map(\.appUserID) == ["a", "b"] || records.map(\.appUserID) == ["b", "a"])
            #expect(Set(records.map(\.codeType)) == ["one_time", "custom"])
            #expect(records.first { $0.codeType == "custom" }?.customCode == "SPRING")
            #expect(records.first { $0.codeType == "one_time" }?.batchID == batch.id)
            #expect(try await store.codeBatches(appID: app.id, offerID: offer.id).first?.redeemed == 1)
        },
    ]
}

extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
}

@Suite struct OfferReportCSVTests {
    static func record(appUserID: String, customCode: String?) -> OfferRedemptionRecord {
        OfferRedemptionRecord(
            id: "ored_1", offerID: "ofr_1", referenceName: "Spring, \"big\" sale", appUserID: appUserID, customerID: "cus_1",
            codeType: customCode == nil ? "one_time" : "custom", customCode: customCode, batchID: nil, purchaseID: "pur_1",
            channel: "web", createdAt: ISODate.parse("2026-06-01T00:00:00Z")!)
    }

    @Test func fieldsAreQuotedAndFormulasDefused() {
        // App user IDs are the app's own strings: commas, quotes and a leading "=" must not break or run in a spreadsheet.
        #expect(
            Self.record(appUserID: "=HYPERLINK(\"x\")", customCode: "SPRING").csvLine
                == #"2026-06-01T00:00:00Z,"'=HYPERLINK(""x"")",cus_1,custom,SPRING,ofr_1,"Spring, ""big"" sale",web,pur_1"#)
        #expect(
            Self.record(appUserID: "-5", customCode: nil).csvLine
                == #"2026-06-01T00:00:00Z,'-5,cus_1,one_time,,ofr_1,"Spring, ""big"" sale",web,pur_1"#)
        #expect(
            Self.record(appUserID: "plain", customCode: nil).csvLine
                == #"2026-06-01T00:00:00Z,plain,cus_1,one_time,,ofr_1,"Spring, ""big"" sale",web,pur_1"#)
    }
}
