import Foundation
import RedeemCore
import RedeemTestSupport
import Testing

@testable import RedeemStore

/// PostgreSQL's one-statement redemption answers exactly what the transactional path would, and hands every case it
/// does not own (or any conflict) to it.
@Suite(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL"))
struct RedemptionFastPathCases {
    static func withStore(_ body: (SQLStore, App) async throws -> Void) async throws {
        try await TestDatabases.withStore(.postgres) { store in
            let app = try await Fixture.app(store)
            try await Fixture.catalog(store, appID: app.id)
            try await body(store, app)
        }
    }

    @Test func aNewClaimantTakesThePurchaseAndGetsTheSameAnswerAsAFreshRead() async throws {
        try await Self.withStore { store, app in
            let (purchase, hash) = try await RedemptionCases.purchaseWithToken(store, appID: app.id, buyer: Fixture.user("bob"))
            let fast = try #require(
                try await store.fastRedemption(appID: app.id, tokenHash: hash, claimant: Fixture.user("carol"), now: Fixture.now))
            guard case .redeemed(let moved, .transfer?) = fast.outcome else {
                Issue.record("got \(fast.outcome)")
                return
            }
            let carol = try #require(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("carol")))
            #expect(moved.customerID == carol.id)
            #expect(try await store.purchase(appID: app.id, id: purchase.id).customerID == carol.id)
            #expect(fast.customerInfo == (try await store.customerInfo(appID: app.id, appUserID: Fixture.user("carol"), now: Fixture.now)))
            #expect(fast.product?.entitlements == ["pro"])
            #expect(try await store.customerInfo(appID: app.id, appUserID: Fixture.user("bob"), now: Fixture.now).subscriber.entitlements.isEmpty)
            #expect(try await store.redemptionAttempts(appID: app.id, purchaseID: purchase.id).map(\.outcome) == ["redeemed"])
            #expect(try await store.redemptionTokenState(tokenHash: hash)?.consumedAt != nil)
            // The link is used: the facts say so, and only the attempt is written.
            #expect(
                try await store.fastRedemption(appID: app.id, tokenHash: hash, claimant: Fixture.user("dave"), now: Fixture.now)?.outcome
                    == .belongsToOtherUser)
            #expect(
                try await store.redemptionAttempts(appID: app.id, purchaseID: purchase.id).map(\.outcome) == ["redeemed", "belongs_to_other_user"])
            // Redeemed again by carol: the transactional path reads the answer.
            #expect(try await store.fastRedemption(appID: app.id, tokenHash: hash, claimant: Fixture.user("carol"), now: Fixture.now) == nil)
        }
    }

    /// transfer_if_no_active_subscription: the facts read tells an owner with a live subscription (refused: only the
    /// attempt is written, the link stays unused) from an owner whose subscription lapsed (it transfers).
    @Test func theOwnersActiveSubscriptionIsReadForTheRule() async throws {
        try await Self.withStore { store, created in
            var app = created
            app.restoreBehavior = .transferIfNoActiveSubscription
            try await store.updateApp(app)
            for (name, subscribed) in [("bob", true), ("ben", false)] {
                let bought = subscribed ? Fixture.now : Fixture.now.addingTimeInterval(-86_400 * 90)
                _ = try await store.grant(
                    PurchaseGrant(appID: app.id, appUserID: Fixture.user(name), productID: "monthly", purchaseDate: bought), idempotency: nil,
                    now: bought)
                let (purchase, hash) = try await RedemptionCases.purchaseWithToken(
                    store, appID: app.id, buyer: Fixture.user(name), product: "lifetime")
                let claimant = Fixture.user("\(name)-claimant")
                let fast = try #require(try await store.fastRedemption(appID: app.id, tokenHash: hash, claimant: claimant, now: Fixture.now))
                #expect((fast.outcome == .belongsToOtherUser) == subscribed, "\(name)")
                #expect((try await store.redemptionTokenState(tokenHash: hash)?.consumedAt == nil) == subscribed, "\(name)")
                let owner = try await store.findCustomer(appID: app.id, appUserID: subscribed ? Fixture.user(name) : claimant)
                #expect(try await RedemptionCases.owner(store, app.id, purchase) == owner?.id, "\(name)")
            }
        }
    }

    @Test func aKnownClaimantKeepsWhatItHadAndGainsThePurchase() async throws {
        try await Self.withStore { store, app in
            _ = try await store.grant(
                PurchaseGrant(appID: app.id, appUserID: Fixture.user("erin"), productID: "coins", purchaseDate: Fixture.now), idempotency: nil,
                now: Fixture.now)
            let (purchase, hash) = try await RedemptionCases.purchaseWithToken(store, appID: app.id, buyer: Fixture.user("bob"), product: "lifetime")
            let later = Fixture.now.addingTimeInterval(120)
            let fast = try #require(try await store.fastRedemption(appID: app.id, tokenHash: hash, claimant: Fixture.user("erin"), now: later))
            let info = try #require(fast.customerInfo)
            #expect(info == (try await store.customerInfo(appID: app.id, appUserID: Fixture.user("erin"), now: later)))
            #expect(info.subscriber.nonSubscriptions.keys.sorted() == ["coins", "lifetime"])
            #expect(info.subscriber.entitlements.keys.sorted() == ["extra", "pro"])
            let erin = try await store.findCustomer(appID: app.id, appUserID: Fixture.user("erin"))
            #expect(try await RedemptionCases.owner(store, app.id, purchase) == erin?.id)
        }
    }

    /// Refusals the facts decide are answered with the attempt alone, as the transactional path records them; a link
    /// of another app, an unknown or an expired one, and the purchase's own customer claiming it (nothing moves).
    @Test func refusalsTheFactsDecideWriteOnlyTheAttempt() async throws {
        try await Self.withStore { store, app in
            let other = try await Fixture.app(store, name: "Other")
            let (purchase, first) = try await RedemptionCases.purchaseWithToken(store, appID: app.id, buyer: Fixture.user("bob"))
            #expect(
                try await store.fastRedemption(appID: other.id, tokenHash: first, claimant: Fixture.user("c"), now: Fixture.now)?.outcome == .otherApp
            )
            let unknown = String(repeating: "0", count: 64)
            #expect(
                try await store.fastRedemption(appID: app.id, tokenHash: unknown, claimant: Fixture.user("c"), now: Fixture.now)?.outcome == .invalid)
            let (stale, expired) = try await RedemptionCases.purchaseWithToken(store, appID: app.id, buyer: Fixture.user("bob"), expiresIn: 10)
            let answer = try await store.fastRedemption(
                appID: app.id, tokenHash: expired, claimant: Fixture.user("c"), now: Fixture.now.addingTimeInterval(60))
            #expect(answer?.outcome == .expired(stale))
            #expect(try await store.redemptionAttempts(appID: app.id, purchaseID: stale.id).map(\.outcome) == ["expired"])
            let attempts = try await store.database.read {
                try await $0.query("SELECT outcome FROM redemption_attempts WHERE purchase_id IS NULL ORDER BY outcome")
            }
            #expect(try attempts.map { try $0.string("outcome") } == ["invalid", "other_app"])
            // None of these consumed anything.
            #expect(try await store.redemptionTokenState(tokenHash: first)?.consumedAt == nil)
            #expect(try await store.redemptionTokenState(tokenHash: expired)?.consumedAt == nil)
            // bob's own link: nothing moves, the link is used.
            let own = try #require(try await store.fastRedemption(appID: app.id, tokenHash: first, claimant: Fixture.user("bob"), now: Fixture.now))
            #expect(own.outcome == .redeemed(purchase, association: nil))
            #expect(own.customerInfo == (try await store.customerInfo(appID: app.id, appUserID: Fixture.user("bob"), now: Fixture.now)))
        }
    }

    /// Decides on fresh facts as the fast path does and returns the write, for a test to change the data under it.
    static func plannedWrite(
        _ store: SQLStore, _ appID: String, _ hash: String, _ claimant: AppUserID, now: Date = Fixture.now
    ) async throws
        -> RedemptionWrite
    {
        let plan = try await store.database.read { try await SQLStore.fastPlan(appID: appID, tokenHash: hash, claimant: claimant, now: now, on: $0) }
        guard case .write(let write) = plan else { throw TestSetupError("no write planned: \(plan)") }
        return write
    }

    /// The statement re-checks the owner it was decided for: when the purchase has moved, nothing of it stays.
    @Test func aStaleDecisionUndoesTheWholeStatement() async throws {
        try await Self.withStore { store, app in
            let (purchase, hash) = try await RedemptionCases.purchaseWithToken(store, appID: app.id, buyer: Fixture.user("bob"))
            let statement = SQLStore.oneStatement(try await Self.plannedWrite(store, app.id, hash, Fixture.user("zed")))
            // A concurrent transfer, committed between the facts read and the statement.
            _ = try await store.transferPurchase(appID: app.id, purchaseID: purchase.id, to: Fixture.user("yan"), now: Fixture.now)
            await #expect { try await store.database.read { try await $0.query(statement) } } throws: { ($0 as? StoreError)?.isRaceLost == true }
            #expect(try await store.redemptionTokenState(tokenHash: hash)?.consumedAt == nil)
            #expect(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("zed")) == nil)
            #expect(try await store.redemptionAttempts(appID: app.id, purchaseID: purchase.id).isEmpty)
        }
    }

    /// A purchase bought anonymously on the web merges its customer into the claimant's, as `merge(_:into:)` does in
    /// the transactional path: the same answer, sightings and aliases as that path gives in a twin app.
    @Test func anAnonymousPurchaseMergesAsTheTransactionalPathDoes() async throws {
        try await Self.withStore { store, app in
            let twin = try await Fixture.app(store, name: "Twin")
            try await Fixture.catalog(store, appID: twin.id)
            let later = Fixture.now.addingTimeInterval(300)
            var answers: [DescribedRedemption] = []
            for (appID, fast) in [(app.id, true), (twin.id, false)] {
                // erin is known and has coins; the anonymous buyer bought two products on the web.
                _ = try await store.grant(
                    PurchaseGrant(appID: appID, appUserID: Fixture.user("erin"), productID: "coins", purchaseDate: Fixture.now),
                    idempotency: nil, now: Fixture.now.addingTimeInterval(60))
                let buyer = AppUserID.anonymous()
                let (purchase, hash) = try await RedemptionCases.purchaseWithToken(store, appID: appID, buyer: buyer)
                _ = try await store.grant(
                    PurchaseGrant(appID: appID, appUserID: buyer, productID: "lifetime", purchaseDate: Fixture.now), idempotency: nil,
                    now: Fixture.now)
                let answer =
                    fast
                    ? try #require(try await store.fastRedemption(appID: appID, tokenHash: hash, claimant: Fixture.user("erin"), now: later))
                    : try await store.redeem(
                        appID: appID, tokenHash: hash, claimant: Fixture.user("erin"), behavior: app.restoreBehavior, now: later, describe: true)
                answers.append(answer)
                guard case .redeemed(let moved, .alias?) = answer.outcome else {
                    Issue.record("got \(answer.outcome)")
                    return
                }
                let erin = try #require(try await store.findCustomer(appID: appID, appUserID: Fixture.user("erin")))
                #expect(moved.customerID == erin.id)
                #expect(try await store.findCustomer(appID: appID, appUserID: buyer)?.id == erin.id)
                #expect(Set(erin.aliases) == [Fixture.user("erin").rawValue, buyer.rawValue])
                #expect(erin.firstSeen == Fixture.now && erin.lastSeen == later)
                #expect(try await store.redemptionAttempts(appID: appID, purchaseID: purchase.id).map(\.outcome) == ["redeemed"])
                #expect(answer.customerInfo == (try await store.customerInfo(appID: appID, appUserID: Fixture.user("erin"), now: later)))
            }
            let (fast, transactional) = (try #require(answers.first?.customerInfo), try #require(answers.last?.customerInfo))
            #expect(fast.subscriber.nonSubscriptions.keys.sorted() == ["coins", "lifetime"])
            #expect(fast.subscriber.entitlements.keys.sorted() == transactional.subscriber.entitlements.keys.sorted())
            #expect(fast.subscriber.subscriptions.keys.sorted() == transactional.subscriber.subscriptions.keys.sorted())
            #expect(fast.subscriber.nonSubscriptions.keys.sorted() == transactional.subscriber.nonSubscriptions.keys.sorted())
            #expect(fast.subscriber.firstSeen == transactional.subscriber.firstSeen)
            #expect(fast.subscriber.lastSeen == transactional.subscriber.lastSeen)
            // The anonymous customer is gone in both apps: every ID left resolves to erin's customer.
            let customers = try await store.database.read {
                try await $0.query("SELECT COUNT(*) AS n FROM customers WHERE app_id IN (\(app.id), \(twin.id))")
            }
            #expect(try customers.first?.int("n") == 2)
        }
    }

    @Test func aNewClaimantTakesOverAnAnonymousBuyersCustomer() async throws {
        try await Self.withStore { store, app in
            let buyer = AppUserID.anonymous()
            let (purchase, hash) = try await RedemptionCases.purchaseWithToken(store, appID: app.id, buyer: buyer)
            let later = Fixture.now.addingTimeInterval(300)
            let fast = try #require(try await store.fastRedemption(appID: app.id, tokenHash: hash, claimant: Fixture.user("carol"), now: later))
            guard case .redeemed(_, .alias?) = fast.outcome else {
                Issue.record("got \(fast.outcome)")
                return
            }
            let carol = try #require(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("carol")))
            #expect(try await RedemptionCases.owner(store, app.id, purchase) == carol.id)
            #expect(try await store.findCustomer(appID: app.id, appUserID: buyer)?.id == carol.id)
            #expect(carol.firstSeen == Fixture.now && carol.lastSeen == later)  // the buyer's first sighting is kept
            #expect(fast.customerInfo == (try await store.customerInfo(appID: app.id, appUserID: Fixture.user("carol"), now: later)))
        }
    }

    /// A merge decided for an anonymous owner that has since signed in (an identified alias) is undone whole.
    @Test func aMergeDecidedForAnOwnerThatSignedInMeanwhileIsUndone() async throws {
        try await Self.withStore { store, app in
            let buyer = AppUserID.anonymous()
            let (purchase, hash) = try await RedemptionCases.purchaseWithToken(store, appID: app.id, buyer: buyer)
            let statement = SQLStore.oneStatement(try await Self.plannedWrite(store, app.id, hash, Fixture.user("zed")))
            try await store.database.read {
                try await $0.query(
                    """
                    INSERT INTO customer_aliases (app_id, app_user_id, customer_id, created_at)
                    VALUES (\(app.id), 'signed-in', \(purchase.customerID), \(Fixture.now))
                    """)
            }
            await #expect { try await store.database.read { try await $0.query(statement) } } throws: { ($0 as? StoreError)?.isRaceLost == true }
            #expect(try await store.redemptionTokenState(tokenHash: hash)?.consumedAt == nil)
            #expect(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("zed")) == nil)
            #expect(try await RedemptionCases.owner(store, app.id, purchase) == purchase.customerID)
            #expect(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("signed-in"))?.id == purchase.customerID)
        }
    }

    /// A token taken between the facts read and the statement: the statement changes nothing and answers no claimant,
    /// whichever way it was decided, so the transactional path answers.
    @Test func aTokenTakenMeanwhileLeavesNothing() async throws {
        try await Self.withStore { store, app in
            for merges in [false, true] {
                let buyer = merges ? AppUserID.anonymous() : Fixture.user("bob")
                let (purchase, hash) = try await RedemptionCases.purchaseWithToken(store, appID: app.id, buyer: buyer)
                let statement = SQLStore.oneStatement(try await Self.plannedWrite(store, app.id, hash, Fixture.user("zed")))
                _ = try await store.redeemDescribed(appID: app.id, tokenHash: hash, claimant: Fixture.user("yan"), now: Fixture.now)
                let owner = try await RedemptionCases.owner(store, app.id, purchase)
                let rows = try await store.database.read { try await $0.query(statement) }
                #expect(rows.count == 1 && rows.first?.optionalString("customer_ref") == nil)
                #expect(try await store.findCustomer(appID: app.id, appUserID: Fixture.user("zed")) == nil)
                #expect(try await RedemptionCases.owner(store, app.id, purchase) == owner)
                #expect(try await store.redemptionAttempts(appID: app.id, purchaseID: purchase.id).count == 1)
            }
        }
    }

    /// Two links of one purchase redeemed at once by new users, many times over: each redemption either wins on the fast
    /// path or, finding the purchase moved under it, is undone whole and decided again on the transactional one.
    @Test func twoLinksOfOnePurchaseAtOnceStayConsistent() async throws {
        try await Self.withStore { store, app in
            for round in 0..<10 {
                // Even rounds transfer an identified owner's purchase; odd ones merge an anonymous buyer's customer.
                let buyer = round.isMultiple(of: 2) ? Fixture.user("owner-\(round)") : AppUserID.anonymous()
                let (purchase, one) = try await RedemptionCases.purchaseWithToken(store, appID: app.id, buyer: buyer)
                let two = SecretToken.hash(RedemptionLink.newToken())
                try await store.issueRedemptionToken(
                    appID: app.id, purchaseID: purchase.id, tokenHash: two, now: Fixture.now, expiresAt: Fixture.now.addingTimeInterval(3600))
                async let a = store.redeemDescribed(appID: app.id, tokenHash: one, claimant: Fixture.user("a-\(round)"), now: Fixture.now)
                async let b = store.redeemDescribed(appID: app.id, tokenHash: two, claimant: Fixture.user("b-\(round)"), now: Fixture.now)
                let outcomes = try await [a.outcome, b.outcome]
                #expect(outcomes.allSatisfy { if case .redeemed = $0 { true } else { false } }, "\(outcomes)")
                let finalOwner = try await RedemptionCases.owner(store, app.id, purchase)
                let a1 = try await store.findCustomer(appID: app.id, appUserID: Fixture.user("a-\(round)"))?.id
                let b1 = try await store.findCustomer(appID: app.id, appUserID: Fixture.user("b-\(round)"))?.id
                #expect(finalOwner == a1 || finalOwner == b1)
                if buyer.isAnonymous {
                    let merged = try await store.findCustomer(appID: app.id, appUserID: buyer)?.id
                    #expect(merged == a1 || merged == b1, "the anonymous buyer's ID went to one of the claimants")
                }
                #expect(try await store.redemptionAttempts(appID: app.id, purchaseID: purchase.id).count == 2)
            }
        }
    }

    /// A second ID for `user`'s customer, seen a second later: events list every alias, in the order they were added.
    static func addAlias(_ store: SQLStore, _ appID: String, to user: String, _ alias: String) async throws {
        try await store.database.read {
            try await $0.query(
                """
                INSERT INTO customer_aliases (app_id, app_user_id, customer_id, created_at)
                SELECT app_id, \(alias), customer_id, created_at + 1000 FROM customer_aliases WHERE app_id = \(appID) AND app_user_id = \(user)
                """)
        }
    }

    /// With live endpoints the statement queues what `emitRedemption` queues on the transactional path: for a transfer to
    /// a new claimant, a transfer to a known one and a merge, the same events with the same bodies (but for their own
    /// IDs) as a twin app gets, one delivery per endpoint.
    @Test func webhookEventsAreTheTransactionalPathsEvents() async throws {
        try await Self.withStore { store, app in
            let twin = try await Fixture.app(store, name: "Twin")
            try await Fixture.catalog(store, appID: twin.id)
            var bodies: [String: [String]] = [:]
            for (appID, fast) in [(app.id, true), (twin.id, false)] {
                // dave is known, under two IDs; two bought while identified, one anonymously.
                _ = try await store.grant(
                    PurchaseGrant(appID: appID, appUserID: Fixture.user("dave"), productID: "coins", purchaseDate: Fixture.now), idempotency: nil,
                    now: Fixture.now)
                try await RedemptionFastPathCases.addAlias(store, appID, to: "dave", "dave-ipad")
                let buyer = AppUserID.anonymous()
                let bought = [
                    (try await RedemptionCases.purchaseWithToken(store, appID: appID, buyer: Fixture.user("bob"), product: "lifetime"), "carol"),
                    (try await RedemptionCases.purchaseWithToken(store, appID: appID, buyer: Fixture.user("bill")), "dave"),
                    (try await RedemptionCases.purchaseWithToken(store, appID: appID, buyer: buyer), "dave"),
                ]
                for id in ["whe_a", "whe_b"] {
                    try await store.createWebhookEndpoint(
                        WebhookEndpoint(
                            id: id + appID, appID: appID, url: "https://example.com/\(id)", authorization: nil, signingSecret: "s",
                            createdAt: Fixture.now))
                }
                for (index, ((purchase, hash), claimant)) in bought.enumerated() {
                    let later = Fixture.now.addingTimeInterval(300 + Double(index))
                    let answer =
                        fast
                        ? try #require(
                            try await store.fastRedemption(appID: appID, tokenHash: hash, claimant: Fixture.user(claimant), now: later))
                        : try await store.redeem(
                            appID: appID, tokenHash: hash, claimant: Fixture.user(claimant), behavior: app.restoreBehavior, now: later,
                            describe: true)
                    guard case .redeemed = answer.outcome else {
                        Issue.record("got \(answer.outcome)")
                        return
                    }
                    let rows = try await store.database.read {
                        try await $0.query(
                            """
                            SELECT endpoint_id, event_type, body FROM webhook_deliveries
                            WHERE app_id = \(appID) AND created_at = \(later) ORDER BY event_type, endpoint_id
                            """)
                    }
                    var seen: [String] = []
                    for row in rows {
                        // What differs between the twins: the app, the purchase, the anonymous buyer, the event and endpoint IDs.
                        var body = try row.string("body").replacingOccurrences(of: appID, with: "APP")
                        for (value, name) in [(purchase.id, "PURCHASE"), (purchase.storeTransactionID, "TXN"), (buyer.rawValue, "ANON")] {
                            body = body.replacingOccurrences(of: value, with: name)
                        }
                        body = body.replacingOccurrences(of: #"evt_[A-Za-z0-9_-]+"#, with: "EVT", options: .regularExpression)
                        seen.append(try row.string("event_type") + " " + body)
                    }
                    bodies[claimant + purchase.productID + (fast ? "fast" : "twin"), default: []] += seen
                    #expect(rows.count == 4, "two events, each to both endpoints")
                }
            }
            #expect(bodies.count == 4)
            for (key, fast) in bodies where key.hasSuffix("fast") {
                #expect(fast == bodies[key.replacingOccurrences(of: "fast", with: "twin")])
            }
            let types = bodies.values.flatMap { $0 }.map { String($0.split(separator: " ")[0]) }
            #expect(Set(types) == ["REDEMPTION", "TRANSFER", "SUBSCRIBER_ALIAS"])
            // The transfer to dave lists both his IDs.
            #expect(bodies["davemonthlyfast"]?.contains { $0.contains(#""dave","dave-ipad""#) } == true)
        }
    }

    /// An endpoint added (or disabled) between the facts and the statement undoes the statement: the transactional
    /// path then queues for the endpoints there are.
    @Test func endpointsChangedMeanwhileUndoTheStatement() async throws {
        try await Self.withStore { store, app in
            let (_, hash) = try await RedemptionCases.purchaseWithToken(store, appID: app.id, buyer: Fixture.user("bob"))
            let statement = SQLStore.oneStatement(try await Self.plannedWrite(store, app.id, hash, Fixture.user("zed")))
            try await store.createWebhookEndpoint(
                WebhookEndpoint(
                    id: "whe_new", appID: app.id, url: "https://example.com/h", authorization: nil, signingSecret: "s", createdAt: Fixture.now))
            await #expect { try await store.database.read { try await $0.query(statement) } } throws: { ($0 as? StoreError)?.isRaceLost == true }
            #expect(try await store.redemptionTokenState(tokenHash: hash)?.consumedAt == nil)
            let described = try await store.redeemDescribed(appID: app.id, tokenHash: hash, claimant: Fixture.user("zed"), now: Fixture.now)
            guard case .redeemed = described.outcome else {
                Issue.record("got \(described.outcome)")
                return
            }
            let queued = try await store.database.read {
                try await $0.query("SELECT event_type FROM webhook_deliveries WHERE endpoint_id = 'whe_new' ORDER BY event_type")
            }
            #expect(try queued.map { try $0.string("event_type") } == ["REDEMPTION", "TRANSFER"])
        }
    }

    /// An app seen without live endpoints is read without what events need; an endpoint added since is seen by that
    /// read, which runs again with it, so the redemption still queues its events.
    @Test func anEndpointAddedAfterAnAppWasSeenWithoutAnyGetsItsEvents() async throws {
        try await Self.withStore { store, app in
            let (_, first) = try await RedemptionCases.purchaseWithToken(store, appID: app.id, buyer: Fixture.user("bob"))
            let (_, second) = try await RedemptionCases.purchaseWithToken(store, appID: app.id, buyer: Fixture.user("bill"))
            #expect(try await store.fastRedemption(appID: app.id, tokenHash: first, claimant: Fixture.user("carol"), now: Fixture.now) != nil)
            #expect(store.endpointsSeen.hadNone(appID: app.id))
            try await store.createWebhookEndpoint(
                WebhookEndpoint(
                    id: "whe_late", appID: app.id, url: "https://example.com/h", authorization: nil, signingSecret: "s", createdAt: Fixture.now))
            let described = try #require(
                try await store.fastRedemption(appID: app.id, tokenHash: second, claimant: Fixture.user("dora"), now: Fixture.now))
            guard case .redeemed = described.outcome else {
                Issue.record("got \(described.outcome)")
                return
            }
            let queued = try await store.database.read {
                try await $0.query("SELECT event_type FROM webhook_deliveries WHERE endpoint_id = 'whe_late' ORDER BY event_type")
            }
            #expect(try queued.map { try $0.string("event_type") } == ["REDEMPTION", "TRANSFER"])
            #expect(!store.endpointsSeen.hadNone(appID: app.id))
        }
    }
}
