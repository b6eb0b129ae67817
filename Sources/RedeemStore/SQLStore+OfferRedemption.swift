import Foundation
import RedeemCore
import RedeemWebhooks

/// A request to redeem an offer code for an app user.
public struct OfferCodeRedemptionRequest: Sendable {
    public typealias Channel = OfferRedemptionChannel

    /// What a checkout charged for a paid offer.
    public struct Payment: Sendable {
        public var price: Price
        public var storeTransactionID: String?

        public init(price: Price, storeTransactionID: String? = nil) {
            self.price = price
            self.storeTransactionID = storeTransactionID
        }
    }

    public var appID: String
    /// As typed: any case, spaces and dashes allowed.
    public var code: String
    public var claimant: AppUserID
    public var channel: Channel
    public var isSandbox: Bool
    public var store: Store
    public var email: String?
    /// Required for paid offers, which only a checkout grants.
    public var payment: Payment?
    /// The web claim or checkout it came from, to find its purchase again after a repeated submit.
    public var checkoutReference: String?
    /// The buyer's language on a web claim (`Purchase.language`).
    public var language: String? = nil
    /// The buyer's consent to the app's terms on a web claim, where the app asks for it (`Purchase.termsConsent`).
    public var termsConsent: TermsConsent? = nil
    /// Read the claimant's CustomerInfo in the same transaction (the SDK route answers with it).
    public var includeCustomerInfo = false
    public var now: Date

    /// Who a web claim is for besides the claimant: the buyer's address, normalized. Offer rules hold against every
    /// purchase and claim of it in the app, since each web claim starts a new anonymous customer.
    public var claimingAddress: String? { channel == .web ? email.flatMap(PortalRules.normalizedEmail) : nil }

    public init(
        appID: String, code: String, claimant: AppUserID, channel: Channel, isSandbox: Bool, store: Store = .promotional,
        email: String? = nil, payment: Payment? = nil, checkoutReference: String? = nil, now: Date
    ) {
        self.checkoutReference = checkoutReference
        self.appID = appID
        self.code = code
        self.claimant = claimant
        self.channel = channel
        self.isSandbox = isSandbox
        self.store = store
        self.email = email
        self.payment = payment
        self.now = now
    }
}

/// A successful redemption: the purchase it recorded and what it did.
public struct OfferCodeRedemption: Sendable {
    public let purchase: Purchase
    public let offer: Offer
    public let product: Product
    public let kind: OfferRedemptionKind
    /// The claimant's CustomerInfo as the redemption's transaction committed it, when the request asked for it.
    public var customerInfo: CustomerInfo? = nil
}

extension SQLStore {
    /// Redeems a code in one write transaction: the claim (one conditional update), the quota, the one-per-customer record,
    /// the purchase and its webhook event commit together or not at all. On PostgreSQL a claim decided from one read takes
    /// one statement instead (`fastOfferRedemption`); both apply the same `OfferClaimEffects`.
    public func redeemOfferCode(_ request: OfferCodeRedemptionRequest) async throws -> Result<OfferCodeRedemption, OfferRedemptionFailure> {
        if let fast = try await fastOfferRedemption(request) { return fast }
        do {
            return .success(try await redeemOfferCodeOnce(request))
        } catch let refused as OfferRefused {
            return .failure(refused.failure)
        } catch let error as StoreError where error.isConflict {
            // A concurrent redemption by the same customer won the unique (offer, customer) race, or the claimant was
            // created meanwhile; this retry decides on fresh facts.
            do { return .success(try await redeemOfferCodeOnce(request)) } catch let refused as OfferRefused { return .failure(refused.failure) }
        }
    }

    /// The offer behind a typed code, for a page that shows it; never changes anything.
    public func findOfferCode(appID: String, code: String) async throws -> FoundOfferCode? {
        try await read { try await Self.findOfferCode(appID: appID, typed: code, on: $0) }
    }

    /// Thrown inside the transaction so that everything it did is rolled back.
    struct OfferRefused: Error {
        let failure: OfferRedemptionFailure
    }

    func redeemOfferCodeOnce(_ request: OfferCodeRedemptionRequest) async throws -> OfferCodeRedemption {
        try await write { try await Self.redeemOfferCode(request, on: $0) }
    }

    /// Inside a write transaction; throws `OfferRefused` for a refusal, leaving the caller to roll back. Facts in (read
    /// here), decision and effects out (`offerClaimEffects`), applied one statement at a time (`applyOfferClaim`).
    static func redeemOfferCode(_ request: OfferCodeRedemptionRequest, on connection: any SQLConnection) async throws -> OfferCodeRedemption {
        guard let found = try await Self.findOfferCode(appID: request.appID, typed: request.code, on: connection) else {
            throw OfferRefused(failure: .invalid)
        }
        // What the code alone refuses needs no more reads (Core decides it again with the rest).
        if let failure = OfferRules.refusal(found, paid: request.payment != nil, at: request.now) { throw OfferRefused(failure: failure) }
        let facts = try await offerClaimFacts(request, found: found, on: connection)
        // No stripes were read, so Core never leaves the claim undecided here.
        guard let decided = try offerClaimEffects(request, facts: facts) else { throw StoreError.conflict("an offer claim was left undecided") }
        let effects: OfferClaimEffects
        switch decided {
        case .success(let value): effects = value
        case .failure(let failure): throw OfferRefused(failure: failure)
        }
        let snapshot = try await applyOfferClaim(effects, answering: request.includeCustomerInfo, on: connection)
        var redemption = OfferCodeRedemption(purchase: effects.purchase, offer: found.offer, product: found.product, kind: effects.kind)
        if let snapshot {
            redemption.customerInfo = CustomerInfo(
                customer: snapshot.customer, purchases: snapshot.purchases, products: snapshot.products, requestDate: request.now)
        }
        return redemption
    }

    /// What deciding the claim needs, read statement by statement inside the transaction: the claimant and its history,
    /// the app's live endpoints (and, when there are some, what the event says of the claimant) and its quota. The
    /// stripes are not read: the sequential claim tries them in turn.
    static func offerClaimFacts(
        _ request: OfferCodeRedemptionRequest, found: FoundOfferCode, on connection: any SQLConnection
    ) async throws -> OfferClaimFacts {
        var claimant = try await resolve(appID: request.appID, appUserID: request.claimant, on: connection)
        let history = try await claimHistory(request, found: found, customerID: claimant?.id, on: connection)
        let endpoints = try await connection.query(
            "SELECT id FROM webhook_endpoints WHERE app_id = \(request.appID) AND disabled_at IS NULL ORDER BY id"
        ).map { try $0.string("id") }
        var attributes: [String: SubscriberAttribute] = [:]
        if !endpoints.isEmpty, let id = claimant?.id {
            claimant?.aliases = try await aliases(customerID: id, on: connection)
            for row in try await connection.query("SELECT key, value, updated_at FROM subscriber_attributes WHERE customer_id = \(id)") {
                attributes[try row.string("key")] = SubscriberAttribute(value: try row.string("value"), updatedAt: try row.date("updated_at"))
            }
        }
        let quota = try await connection.first("SELECT offer_code_quota_per_quarter AS q FROM apps WHERE id = \(request.appID)")?.int("q") ?? 0
        return OfferClaimFacts(
            found: found, claimant: claimant, claimantAttributes: attributes, purchases: history.purchases, products: history.products,
            claimedBefore: history.claimedBefore, endpointIDs: endpoints, quota: Int(quota))
    }

    /// The claimant's history: its customer's purchases and claims of the offer, and on the web those of the buyer's
    /// address, with the products they are of.
    static func claimHistory(
        _ request: OfferCodeRedemptionRequest, found: FoundOfferCode, customerID: String?, on connection: any SQLConnection
    ) async throws -> (claimedBefore: Bool, purchases: [Purchase], products: [String: Product]) {
        let address = request.claimingAddress
        // The purchases before the claim record: a claim committing between the two reads (PostgreSQL reads each
        // statement afresh) then shows as claimed, never as a purchase with no claim (which reads as "not eligible").
        var purchases: [Purchase] = []
        if let customerID {
            purchases = try await connection.query("SELECT * FROM purchases WHERE customer_id = \(customerID)").map(Purchase.init(row:))
        }
        if let address {
            let known = Set(purchases.map(\.id))
            purchases += try await connection.query(
                "SELECT * FROM purchases WHERE app_id = \(request.appID) AND LOWER(email) = \(address)"
            ).map(Purchase.init(row:)).filter { !known.contains($0.id) }
        }
        let claimedBefore =
            try await connection.first(
                """
                SELECT 1 AS claimed WHERE EXISTS (SELECT 1 FROM offer_redemptions WHERE offer_id = \(found.offer.id) AND customer_id = \(customerID))
                    OR EXISTS (SELECT 1 FROM offer_redemptions WHERE offer_id = \(found.offer.id) AND email = \(address))
                """) != nil
        var products = [found.product.id: found.product]
        let others = Array(Set(purchases.map(\.productID)).subtracting([found.product.id]))
        for product in try await Self.products(appID: request.appID, ids: others, on: connection) { products[product.id] = product }
        return (claimedBefore, purchases, products)
    }

    /// Why a web claim would be refused, decided as the redemption would decide it, without writing: checked before a
    /// paid offer's checkout, so nobody pays for what they cannot have. Nil when it would be granted (or is not known).
    public func offerClaimRefusal(_ request: OfferCodeRedemptionRequest) async throws -> OfferRedemptionFailure? {
        try await read { connection in
            guard let found = try await Self.findOfferCode(appID: request.appID, typed: request.code, on: connection) else { return .invalid }
            if let failure = found.unavailability(at: request.now) { return failure }
            let customer = try await Self.resolve(appID: request.appID, appUserID: request.claimant, on: connection)
            let history = try await Self.claimHistory(request, found: found, customerID: customer?.id, on: connection)
            if case .failure(let failure) = OfferRules.decide(
                offer: found.offer, product: found.product, claimedBefore: history.claimedBefore, purchases: history.purchases,
                products: history.products, at: request.now, channel: request.channel)
            {
                return failure
            }
            return nil
        }
    }

    /// One-time codes are looked up by hash, custom codes by their canonical form; anything else finds nothing.
    static func findOfferCode(appID: String, typed: String, on connection: any SQLConnection) async throws -> FoundOfferCode? {
        var kind: FoundOfferCode.Kind?
        if let code = OfferCode.normalize(typed) {
            let hash = OfferCode.storedHash(code)
            if let row = try await connection.first(
                """
                SELECT c.redeemed_at, b.* FROM offer_codes c JOIN offer_code_batches b ON b.ref = c.batch_ref
                WHERE c.code_hash = \(hash) AND b.app_id = \(appID)
                """)
            {
                kind = .oneTime(hash: hash, batch: try OfferCodeBatch(row: row), used: row.optionalInt("redeemed_at") != nil)
            }
        }
        if kind == nil, let code = OfferCode.normalizeCustom(typed),
            let row = try await connection.first(
                "SELECT \(sql: customCodeColumns) FROM offer_custom_codes c WHERE c.app_id = \(appID) AND c.code = \(code)")
        {
            kind = .custom(try CustomOfferCode(row: row))
        }
        guard let kind else { return nil }
        let offerID =
            switch kind {
            case .oneTime(_, let batch, _): batch.offerID
            case .custom(let code): code.offerID
            }
        let offer = try await offer(appID: appID, id: offerID, on: connection)
        guard let product = try await products(appID: appID, ids: [offer.productID], on: connection).first else { return nil }
        return FoundOfferCode(kind: kind, offer: offer, product: product)
    }

    /// The claim: one conditional update decides, however many redeem at once. A custom code's uses are a
    /// `StripedCount`: stripes are tried in turn (from `first`), each waited for if another transaction holds it, so the
    /// cap is exact; only when every stripe is at its budget is the code exhausted.
    static func claim(_ claim: OfferClaimEffects.Claim, by claimant: AppUserID, now: Date, on connection: any SQLConnection) async throws {
        switch claim {
        case .oneTimeCode:
            if try await connection.query(claimStatement(claim, by: claimant, now: now, stripe: 0)).isEmpty {
                throw OfferRefused(failure: .alreadyRedeemed)
            }
        case .customCodeUse(_, let limit, let first):
            for stripe in StripedCount.tryOrder(limit: limit, first: first) {
                if !(try await connection.query(claimStatement(claim, by: claimant, now: now, stripe: stripe))).isEmpty { return }
            }
            throw OfferRefused(failure: .exhausted)
        }
    }

    /// `claim` of a found code, from a random stripe.
    static func claim(_ found: FoundOfferCode, by claimant: AppUserID, now: Date, on connection: any SQLConnection) async throws {
        let first = Int.random(in: 0..<StripedCount.stripes)
        let claim: OfferClaimEffects.Claim =
            switch found.kind {
            case .oneTime(let hash, _, _): .oneTimeCode(hash: hash)
            case .custom(let code): .customCodeUse(codeID: code.id, limit: code.maxRedemptions, first: first)
            }
        try await Self.claim(claim, by: claimant, now: now, on: connection)
    }

    /// The claim's conditional update: one row when it took the code (or one of a custom code's uses, counted on
    /// `stripe` while the code is active), none otherwise.
    static func claimStatement(_ claim: OfferClaimEffects.Claim, by claimant: AppUserID, now: Date, stripe: Int) -> SQL {
        switch claim {
        case .oneTimeCode(let hash):
            """
            UPDATE offer_codes SET redeemed_at = \(now), redeemed_by = \(claimant.rawValue)
            WHERE code_hash = \(hash) AND redeemed_at IS NULL RETURNING code_hash
            """
        case .customCodeUse(let codeID, let limit, _):
            stripeIncrement("offer_custom_code_stripes", owner: usesOf(codeID: codeID), limit: limit, stripe: stripe)
        }
    }

    /// A custom code's stripes, counted on only while the code is active.
    static func usesOf(codeID: String) -> SQL {
        "code_id = \(codeID) AND EXISTS (SELECT 1 FROM offer_custom_codes WHERE id = \(codeID) AND active = 1)"
    }

    /// The stripes of an app's quota for a quarter.
    static func quotaOf(appID: String, quarter: String) -> SQL {
        "app_id = \(appID) AND quarter = \(quarter)"
    }

    /// Counts one redemption against the app's quarterly quota: a conditional increment of one of the quarter's
    /// stripes (from `count.first`, then the others), each within its budget (`StripedCount.budget`). A stripe another
    /// transaction holds is waited for and checked again, so the count is exact; only when every stripe is full is the
    /// redemption refused. Usually one statement, on a row few others touch. The quarter's first redemption lays out
    /// all its stripes, empty (so the one-statement path finds them). Plain `UPDATE`s, never an upsert on a full
    /// stripe: those lock the row they refuse, and two redemptions could then wait for each other.
    static func countAgainstQuota(appID: String, _ count: OfferClaimEffects.QuotaCount, on connection: any SQLConnection) async throws {
        let order = StripedCount.tryOrder(limit: count.limit, first: count.first)
        for pass in 0..<2 {
            for stripe in order {
                let increment = stripeIncrement(
                    "offer_quota_stripes", owner: quotaOf(appID: appID, quarter: count.quarter), limit: count.limit, stripe: stripe)
                if !(try await connection.query(increment)).isEmpty { return }
            }
            guard pass == 0, !order.isEmpty else { break }
            // The quarter's stripes may not exist yet; rows another transaction is inserting are waited for.
            let empty = [Int](repeating: 0, count: StripedCount.stripes)
            try await connection.query(stripeRows(appID: appID, quarter: count.quarter, used: empty, onConflict: "DO NOTHING"))
        }
        throw OfferRefused(failure: .quotaReached)
    }
}

extension SQLStore {
    /// A quarter's stripes in one statement, `used[k]` on stripe k; `onConflict` (trusted text) says what an existing
    /// row gets.
    static func stripeRows(appID: String, quarter: String, used: [Int], onConflict: String) -> SQL {
        let rows = used.enumerated().map { [SQLValue.text(appID), .text(quarter), .int(Int64($0)), .int(Int64($1))] }
        return """
            INSERT INTO offer_quota_stripes (app_id, quarter, stripe, used) \(sql: .values(rows))
            ON CONFLICT (app_id, quarter, stripe) \(unsafeRaw: onConflict)
            """
    }

    /// One more on stripe `stripe` of `table` (its rows where `owner`), within its budget: one row when counted, none
    /// when it is full. A stripe another transaction holds is waited for and checked again.
    static func stripeIncrement(_ table: String, owner: SQL, limit: Int, stripe: Int) -> SQL {
        """
        UPDATE \(unsafeRaw: table) SET used = used + 1
        WHERE \(sql: owner) AND stripe = \(stripe) AND used < \(StripedCount.budget(limit: limit, stripe: stripe))
        RETURNING used
        """
    }

    /// One more on a stripe of `table` (its rows where `owner`) that has room and that no other transaction holds,
    /// trying them in `StripedCount.tryOrder` from `first`, each within its budget: one row when counted, none when every
    /// stripe with room is full or held. `SKIP LOCKED`, so the one-statement path never queues behind another redemption
    /// on a stripe; the transactional path, which waits, decides then. PostgreSQL only. `owner` names the table's own
    /// columns, unqualified.
    static func unheldStripeIncrement(_ table: String, owner: SQL, limit: Int, first: Int) -> SQL {
        // One scan of the stripes, ordered as `tryOrder` orders them (the usable stripes are 0..<k, so turning the
        // circle from its first one is that order), each tested against its budget as `StripedCount.share` gives it:
        // no row of parameters per stripe, which cost a join and 96 parameters per claim.
        let (each, oneMoreBelow) = StripedCount.share(limit: limit)
        let start = StripedCount.tryOrder(limit: limit, first: first).first ?? 0
        return """
            UPDATE \(unsafeRaw: table) SET used = used + 1
            WHERE \(sql: owner) AND stripe = (
                SELECT stripe FROM \(unsafeRaw: table)
                WHERE \(sql: owner) AND used < \(each) + CASE WHEN stripe < \(oneMoreBelow) THEN 1 ELSE 0 END
                ORDER BY (stripe + \(StripedCount.stripes - start)) % \(StripedCount.stripes) LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING used
            """
    }
}

extension LifecycleTransaction {
    /// Redeems an offer code paid for by this store event, inside the event's transaction: a refusal rolls back only
    /// the redemption's own work (a savepoint), so the event is still recorded.
    public func redeemOfferCode(_ request: OfferCodeRedemptionRequest) async throws -> Result<OfferCodeRedemption, OfferRedemptionFailure> {
        for attempt in 0..<2 {
            try await connection.query("SAVEPOINT offer_code_redemption")
            do {
                let redemption = try await SQLStore.redeemOfferCode(request, on: connection)
                try await connection.query("RELEASE SAVEPOINT offer_code_redemption")
                return .success(redemption)
            } catch let refused as SQLStore.OfferRefused {
                try await connection.query("ROLLBACK TO SAVEPOINT offer_code_redemption")
                try await connection.query("RELEASE SAVEPOINT offer_code_redemption")
                return .failure(refused.failure)
            } catch let error as StoreError where error.isConflict && attempt == 0 {
                // The claimant was created meanwhile: decide again on fresh facts.
                try await connection.query("ROLLBACK TO SAVEPOINT offer_code_redemption")
                try await connection.query("RELEASE SAVEPOINT offer_code_redemption")
            }
        }
        throw StoreError.conflict("an offer claim lost twice to concurrent changes")
    }
}
