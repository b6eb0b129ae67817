import Foundation
import RedeemCore
import RedeemWebhooks

extension SQLStore {
    public func issueRedemptionToken(appID: String, purchaseID: String, tokenHash: String, now: Date, expiresAt: Date) async throws {
        try await write { connection in
            try await Self.insertToken(appID: appID, purchaseID: purchaseID, tokenHash: tokenHash, now: now, expiresAt: expiresAt, on: connection)
        }
    }

    /// A token issued for one occasion (`issuedFor`), at most once: false when that occasion already has its token.
    public func issueRedemptionTokenOnce(
        appID: String, purchaseID: String, tokenHash: String, issuedFor: String, now: Date, expiresAt: Date
    ) async throws -> Bool {
        try await write { connection in
            try await connection.first(
                """
                INSERT INTO redemption_tokens (token_hash, app_id, purchase_id, created_at, expires_at, issued_for)
                VALUES (\(tokenHash), \(appID), \(purchaseID), \(now), \(expiresAt), \(issuedFor))
                ON CONFLICT DO NOTHING RETURNING token_hash
                """) != nil
        }
    }

    /// An operator's new link: the token, its e-mail (unless one went out within `quietPeriod`) and the audit entry,
    /// committed together. Returns whether the e-mail was queued.
    public func issueLink(
        appID: String, purchaseID: String, tokenHash: String?, now: Date, expiresAt: Date, email: QueuedEmail?, quietPeriod: TimeInterval,
        audit: AuditEntry
    ) async throws -> Bool {
        try await write { connection in
            if let tokenHash {
                try await Self.insertToken(appID: appID, purchaseID: purchaseID, tokenHash: tokenHash, now: now, expiresAt: expiresAt, on: connection)
            }
            var emailed = false
            if let email { emailed = try await Self.enqueue(email, quietPeriod: quietPeriod, on: connection) }
            guard tokenHash != nil || emailed else { return false }
            var entry = audit
            entry.detail = tokenHash == nil ? "e-mailed" : emailed ? "shown and e-mailed" : "shown"
            try await Self.insertAudit(entry, on: connection)
            return emailed
        }
    }

    public func redeem(appID: String, tokenHash: String, claimant: AppUserID, behavior: RestoreBehavior, now: Date) async throws -> RedemptionOutcome
    {
        try await redeem(appID: appID, tokenHash: tokenHash, claimant: claimant, behavior: behavior, now: now, describe: false).outcome
    }

    /// Redeems and, when the purchase was redeemed, reads the claimant's CustomerInfo and the product in the same
    /// transaction: what the redeem route answers. The app's restore behaviour is read there too, only when needed.
    public func redeemDescribed(appID: String, tokenHash: String, claimant: AppUserID, now: Date) async throws -> DescribedRedemption {
        try await redeem(appID: appID, tokenHash: tokenHash, claimant: claimant, behavior: nil, now: now, describe: true)
    }

    func redeem(
        appID: String, tokenHash: String, claimant: AppUserID, behavior: RestoreBehavior?, now: Date, describe: Bool
    ) async throws -> DescribedRedemption {
        if describe, behavior == nil,
            let fast = try await fastRedemption(appID: appID, tokenHash: tokenHash, claimant: claimant, now: now)
        {
            return fast
        }
        // A claimant created meanwhile (by its app's first request) changes the facts: decided once more on fresh ones.
        do {
            return try await transactionalRedemption(
                appID: appID, tokenHash: tokenHash, claimant: claimant, behavior: behavior, now: now, describe: describe)
        } catch let error as StoreError where error.isConflict {
            return try await transactionalRedemption(
                appID: appID, tokenHash: tokenHash, claimant: claimant, behavior: behavior, now: now, describe: describe)
        }
    }

    func transactionalRedemption(
        appID: String, tokenHash: String, claimant: AppUserID, behavior: RestoreBehavior?, now: Date, describe: Bool
    ) async throws -> DescribedRedemption {
        let resolution = lastSeenResolution
        do {
            let (outcome, snapshot) = try await write { connection -> (RedemptionOutcome, Snapshot?) in
                let (outcome, recorded, known) = try await Self.redeem(
                    appID: appID, tokenHash: tokenHash, claimant: claimant, behavior: behavior, now: now, describe: describe, on: connection)
                // The attempt is recorded in the redemption's own transaction: one commit, and never one without the other.
                if !recorded {
                    try await Self.recordAttempt(appID: appID, tokenHash: tokenHash, claimant: claimant, outcome: outcome, now: now, on: connection)
                }
                guard describe, let purchase = outcome.redeemedPurchase else { return (outcome, nil) }
                if let known { return (outcome, known) }
                var snapshot = try await Self.describedSnapshot(appID: appID, claimant: claimant, now: now, resolution: resolution, on: connection)
                if snapshot.products[purchase.productID] == nil,
                    let product = try await Self.products(appID: appID, ids: [purchase.productID], on: connection).first
                {
                    snapshot.products[purchase.productID] = product  // redeemed earlier by the claimant, since moved on
                }
                return (outcome, snapshot)
            }
            guard let snapshot, let purchase = outcome.redeemedPurchase else { return DescribedRedemption(outcome: outcome) }
            return DescribedRedemption(
                outcome: outcome,
                customerInfo: CustomerInfo(customer: snapshot.customer, purchases: snapshot.purchases, products: snapshot.products, requestDate: now),
                product: snapshot.products[purchase.productID]
            )
        } catch let refused as Refused {
            // The claim was rolled back with everything else in its transaction; only the attempt is recorded.
            try await write { connection in
                try await Self.recordAttempt(
                    appID: appID, tokenHash: tokenHash, claimant: claimant, outcome: refused.outcome, now: now, on: connection)
            }
            return DescribedRedemption(outcome: refused.outcome)
        }
    }

    /// The claimant's snapshot, refreshing `last_seen` first when it is due (as `customerInfo` does). `write`, an
    /// INSERT that changes nothing the snapshot reads, runs once before it, in the same statement on PostgreSQL.
    static func describedSnapshot(
        appID: String, claimant: AppUserID, now: Date, resolution: TimeInterval, writing write: SQL? = nil, on connection: any SQLConnection
    ) async throws -> Snapshot {
        if let snapshot = try await snapshot(appID: appID, appUserID: claimant, writing: write, on: connection),
            now.timeIntervalSince(snapshot.customer.lastSeen) < resolution
        {
            return snapshot
        }
        _ = try await resolveOrCreate(appID: appID, appUserID: claimant, now: now, on: connection)
        guard let snapshot = try await snapshot(appID: appID, appUserID: claimant, on: connection) else {
            throw StoreError.conflict("customer '\(claimant)' changed concurrently")
        }
        return snapshot
    }

    /// Thrown inside the transaction so that a refused association also undoes the claim.
    /// Thrown inside the redemption's transaction to roll the claim back; `outcome` is what the attempt records.
    struct Refused: Error {
        let outcome: RedemptionOutcome
    }

    static func insertToken(
        appID: String, purchaseID: String, tokenHash: String, now: Date, expiresAt: Date, on connection: any SQLConnection
    ) async throws {
        try await connection.query(
            """
            INSERT INTO redemption_tokens (token_hash, app_id, purchase_id, created_at, expires_at)
            VALUES (\(tokenHash), \(appID), \(purchaseID), \(now), \(expiresAt))
            """)
    }

    /// `behavior` nil: the app's, read only if the association needs it. `recorded`: the attempt was written with the
    /// effects (otherwise the caller records it). `answer`, when `describe`: the claimant's snapshot where the facts
    /// already say it (`claimantHoldsOnlyThePurchase`); nil leaves it to be read.
    static func redeem(
        appID: String, tokenHash: String, claimant: AppUserID, behavior: RestoreBehavior?, now: Date, describe: Bool = false,
        on connection: any SQLConnection
    ) async throws -> (outcome: RedemptionOutcome, recorded: Bool, answer: Snapshot?) {
        // The claim: on PostgreSQL the same statement locks the purchase: another link of it may be redeeming at once,
        // and the read below must wait for that to commit and see its association (a merged-away owner, a new one).
        // SQLite runs one write transaction at a time.
        let claim = claimStatement(appID: appID, tokenHash: tokenHash, claimant: claimant, now: now)
        let claimed =
            connection.engine == .postgres
            ? try await connection.first(
                """
                WITH claimed AS (\(sql: claim))
                SELECT p.id AS purchase_id FROM purchases p JOIN claimed ON p.id = claimed.purchase_id WHERE p.app_id = \(appID)
                FOR UPDATE OF p
                """)
            : try await connection.first(claim)
        guard let claimed else {
            return (try await unclaimable(appID: appID, tokenHash: tokenHash, claimant: claimant, now: now, on: connection), false, nil)
        }
        let facts = try await claimedPurchase(appID: appID, id: try claimed.string("purchase_id"), claimant: claimant, on: connection)
        let write = try await decide(facts, tokenHash: tokenHash, claimant: claimant, behavior: behavior, now: now, on: connection)
        try await apply(write, claiming: false, on: connection)
        guard let moved = write.outcome.redeemedPurchase else { return (write.outcome, true, nil) }
        let known = describe && write.effects.claimantHoldsOnlyThePurchase(ownerPurchaseCount: facts.ownerPurchaseCount)
        guard known || !write.effects.events.isEmpty, let product = try await products(appID: appID, ids: [moved.productID], on: connection).first
        else { return (write.outcome, true, nil) }
        if !write.effects.events.isEmpty {
            let owner = try await eventCustomer(id: write.effects.survivorID, on: connection)
            let source = write.effects.ownership == .transfer ? try await eventCustomer(id: write.effects.ownerID, on: connection) : nil
            try await emit(redemptionEvents(write.effects, purchase: moved, owner: owner, source: source, product: product), on: connection, now: now)
        }
        guard known else { return (write.outcome, true, nil) }
        let customer = Customer(
            id: write.effects.survivorID, appID: appID, originalAppUserID: claimant.rawValue, aliases: [], firstSeen: write.effects.firstSeen,
            lastSeen: write.effects.lastSeen)
        return (write.outcome, true, Snapshot(customer: customer, purchases: [moved], products: [product.id: product]))
    }

    /// Why a token could not be claimed: unknown, another app's, already consumed, or expired.
    static func unclaimable(
        appID: String, tokenHash: String, claimant: AppUserID, now: Date, on connection: any SQLConnection
    ) async throws -> RedemptionOutcome {
        guard let token = try await connection.first("SELECT * FROM redemption_tokens WHERE token_hash = \(tokenHash)") else {
            return .invalid
        }
        guard try token.string("app_id") == appID else { return .otherApp }
        let purchaseID = try token.string("purchase_id")
        if token.optionalInt("consumed_at") != nil {
            return try await alreadyConsumed(
                appID: appID, purchaseID: purchaseID, consumedBy: token.optionalString("consumed_by"), claimant: claimant, now: now, on: connection)
        }
        guard try token.date("expires_at") <= now else {
            throw StoreError.conflict("redemption token changed concurrently")
        }
        return .expired(try await purchase(appID: appID, id: purchaseID, on: connection))
    }

    /// A claimed purchase, read with what its redemption needs besides: its owner's IDs (whether the owner is anonymous
    /// is Core's to say), the app's restore behaviour, whether the app has a live webhook endpoint, and the claimant's
    /// customer if it exists. One statement, one row per owner ID.
    struct ClaimedPurchase {
        let purchase: Purchase
        let ownerIDs: [String]
        let restoreBehavior: RestoreBehavior
        let ownerFirstSeen: Date
        let ownerLastSeen: Date
        /// How many purchases the owner has, this one included.
        let ownerPurchaseCount: Int
        /// The app's live webhook endpoints, by ID.
        let endpointIDs: [String]
        let claimant: Customer?
    }

    static func claimedPurchase(appID: String, id: String, claimant: AppUserID, on connection: any SQLConnection) async throws -> ClaimedPurchase {
        let rows = try await connection.query(
            """
            SELECT p.*, a.restore_behavior AS app_restore_behavior, ca.app_user_id AS owner_app_user_id,
                oc.first_seen AS owner_first_seen, oc.last_seen AS owner_last_seen,
                (SELECT COUNT(*) FROM purchases s WHERE s.customer_id = p.customer_id) AS owner_purchase_count,
                \(sql: connection.engine == .postgres
                    ? liveEndpointsSignature(appID: "p.app_id")
                    : "(SELECT group_concat(id, ',') FROM (SELECT id FROM webhook_endpoints WHERE app_id = p.app_id AND disabled_at IS NULL ORDER BY id))")
                    AS live_endpoints,
                \(unsafeRaw: claimantColumns)
            FROM purchases p JOIN apps a ON a.id = p.app_id JOIN customers oc ON oc.id = p.customer_id
            LEFT JOIN customer_aliases ca ON ca.customer_id = p.customer_id
            \(sql: claimantJoin(claimant))
            WHERE p.app_id = \(appID) AND p.id = \(id)
            """)
        guard let row = rows.first else { throw StoreError.notFound("purchase '\(id)'") }
        return ClaimedPurchase(
            purchase: try Purchase(row: row), ownerIDs: rows.compactMap { $0.optionalString("owner_app_user_id") },
            restoreBehavior: try row.enumeration("app_restore_behavior"), ownerFirstSeen: try row.date("owner_first_seen"),
            ownerLastSeen: try row.date("owner_last_seen"), ownerPurchaseCount: Int(try row.int("owner_purchase_count")),
            endpointIDs: row.optionalString("live_endpoints")?.split(separator: ",").map(String.init) ?? [],
            claimant: try claimantCustomer(row, appID: appID)
        )
    }

    /// The claimant's customer beside a purchase `p` (`claimantJoin`, `claimantColumns`), read back by `claimantCustomer`.
    static let claimantColumns = """
        cc.id AS claimant_customer_id, cc.original_app_user_id AS claimant_original_app_user_id,
            cc.first_seen AS claimant_first_seen, cc.last_seen AS claimant_last_seen
        """

    static func claimantJoin(_ claimant: AppUserID) -> SQL {
        """
        LEFT JOIN customer_aliases cl ON cl.app_id = p.app_id AND cl.app_user_id = \(claimant.rawValue)
            LEFT JOIN customers cc ON cc.id = cl.customer_id
        """
    }

    /// The claimant's customer from a facts row's `claimant_*` columns; nil when the claimant is new.
    static func claimantCustomer(_ row: SQLRow, appID: String) throws -> Customer? {
        try row.optionalString("claimant_customer_id").map { customerID in
            Customer(
                id: customerID, appID: appID, originalAppUserID: try row.string("claimant_original_app_user_id"), aliases: [],
                firstSeen: try row.date("claimant_first_seen"), lastSeen: try row.date("claimant_last_seen"))
        }
    }

    /// What a claimed link tells webhooks, on either path, in the order the effects list them: `REDEMPTION`, then
    /// `TRANSFER` (from `source`, the previous owner) or `SUBSCRIBER_ALIAS`. `owner` is the purchase's customer after.
    static func redemptionEvents(
        _ effects: RedemptionEffects, purchase: Purchase, owner: Customer, source: Customer?, product: Product
    ) -> [(WebhookEvent, transactionID: String?)] {
        let now = effects.at
        let kind: WebhookRedemption.Association? =
            switch effects.decision.association {
            case .alias: .alias
            case .transfer: .transfer
            case .refuse, nil: nil
            }
        return effects.events.compactMap { event -> (WebhookEvent, transactionID: String?)? in
            switch event {
            case .redemption:
                return (
                    .redemption(
                        purchase, customer: owner, product: product, redeemedBy: effects.claimant.rawValue, association: kind, eventID: eventID(),
                        at: now), nil
                )
            case .transfer:
                return source.map { (.transfer(purchase, from: $0, to: owner, eventID: eventID(), at: now), purchase.storeTransactionID) }
            case .alias:
                return (.alias(customer: owner, environment: WebhookEnvironment(isSandbox: purchase.isSandbox), eventID: eventID(), at: now), nil)
            }
        }
    }

    /// A consumed token redeems again only for whoever consumed it (or a user aliased to them).
    static func alreadyConsumed(
        appID: String, purchaseID: String, consumedBy: String?, claimant: AppUserID, now: Date, on connection: any SQLConnection
    ) async throws -> RedemptionOutcome {
        let purchase = try await purchase(appID: appID, id: purchaseID, on: connection)
        let claimantCustomer = try await resolve(appID: appID, appUserID: claimant, on: connection)
        guard
            RedemptionRules.consumedLinkRedeemsAgain(
                consumedBy: consumedBy, claimant: claimant, claimantCustomerID: claimantCustomer?.id, ownerCustomerID: purchase.customerID
            )
        else { return .belongsToOtherUser }
        if RedemptionRules.isLapsed(purchase, at: now) { return .subscriptionExpired(purchase) }
        return .redeemed(purchase, association: nil)
    }

    /// The write `RedemptionRules.decide` and `RedemptionRules.effects` make of the facts read here; a refusal (the
    /// restore behaviour's, or an offer the claimant cannot have) is thrown, to undo the claim.
    /// `behavior` nil: the app's, as `claimed` read it.
    static func decide(
        _ claimed: ClaimedPurchase, tokenHash: String, claimant: AppUserID, behavior: RestoreBehavior?, now: Date, on connection: any SQLConnection
    ) async throws -> RedemptionWrite {
        let purchase = claimed.purchase
        let claimantID = claimed.claimant?.id ?? Identifier.make(prefix: "cus", now: now)
        // An identified ID decides alone that its customer is identified; only an anonymous one needs the others.
        let claimantIDs =
            claimant.isAnonymous && claimed.claimant != nil && claimantID != purchase.customerID
            ? try await aliases(customerID: claimantID, on: connection) : [claimant.rawValue]
        var facts = RedemptionFacts(
            ownerCustomerID: purchase.customerID, ownerIDs: claimed.ownerIDs, claimantCustomerID: claimantID,
            claimantIDs: claimantIDs, behavior: behavior ?? claimed.restoreBehavior, now: now
        )
        if RedemptionRules.needsOwnerSubscriptionState(facts) {
            facts.ownerPurchases = try await accessFacts(customerID: purchase.customerID, on: connection)
        }
        let decision = RedemptionRules.decide(facts)
        if let offer = purchase.offer, decision != .alreadyYours, decision != .refuse,
            let failure = try await offerRefusal(offer, of: purchase, claimantID: claimantID, on: connection)
        {
            throw Refused(outcome: .offerRefused(failure))
        }
        if decision == .refuse { throw Refused(outcome: .belongsToOtherUser) }
        let effects = RedemptionRules.effects(
            claimFacts(claimed, appID: purchase.appID, tokenHash: tokenHash, claimant: claimant, rule: facts), decision: decision,
            attemptID: Identifier.make(prefix: "att", now: now))
        return RedemptionWrite(effects: effects, outcome: outcome(effects, purchase: purchase))
    }

    static func claimFacts(
        _ claimed: ClaimedPurchase, appID: String, tokenHash: String, claimant: AppUserID, rule: RedemptionFacts
    ) -> RedemptionClaimFacts {
        RedemptionClaimFacts(
            appID: appID, tokenHash: tokenHash, claimant: claimant, purchase: claimed.purchase, rule: rule, claimantIsNew: claimed.claimant == nil,
            ownerFirstSeen: claimed.ownerFirstSeen, ownerLastSeen: claimed.ownerLastSeen,
            claimantFirstSeen: claimed.claimant?.firstSeen ?? rule.now, claimantLastSeen: claimed.claimant?.lastSeen ?? rule.now,
            endpointIDs: claimed.endpointIDs)
    }

    /// An offer claimed on the web is checked again against the customer it is redeemed to: whether they had claimed the
    /// offer already, and whether they were eligible when it was claimed (their purchases up to then), as
    /// `OfferRules.decide` judges. Nil when they may have it.
    static func offerRefusal(
        _ claimed: PurchaseOffer, of purchase: Purchase, claimantID: String, on connection: any SQLConnection
    ) async throws -> OfferRedemptionFailure? {
        let offer = try await Self.offer(appID: purchase.appID, id: claimed.offerID, on: connection)
        guard let product = try await products(appID: purchase.appID, ids: [purchase.productID], on: connection).first else { return nil }
        let claimedBefore =
            try await connection.first(
                """
                SELECT id FROM offer_redemptions WHERE offer_id = \(offer.id) AND customer_id = \(claimantID)
                    AND (purchase_id IS NULL OR purchase_id <> \(purchase.id))
                """) != nil
        let history = try await connection.query(
            "SELECT * FROM purchases WHERE customer_id = \(claimantID) AND id <> \(purchase.id) AND created_at <= \(purchase.createdAt)"
        ).map(Purchase.init(row:))
        var products = [product.id: product]
        for other in try await Self.products(appID: purchase.appID, ids: Array(Set(history.map(\.productID))), on: connection) {
            products[other.id] = other
        }
        let decision = OfferRules.decide(
            offer: offer, product: product, claimedBefore: claimedBefore, purchases: history, products: products, at: purchase.purchaseDate,
            channel: .web)
        if case .failure(let failure) = decision { return failure }
        return nil
    }

    /// Every purchase of the customer as the facts `AccessFacts` judges; whether any is active is Core's to say.
    static func accessFacts(customerID: String, on connection: any SQLConnection) async throws -> [AccessFacts] {
        try await connection.query(
            "SELECT expires_date, grace_period_expires_date, refunded_at FROM purchases WHERE customer_id = \(customerID)"
        ).map(AccessFacts.init(row:))
    }

    static func attemptInsert(appID: String, purchaseID: String?, claimant: AppUserID, outcome: RedemptionOutcome, now: Date) -> SQL {
        """
        INSERT INTO redemption_attempts (id, app_id, purchase_id, app_user_id, outcome, created_at)
        VALUES (\(Identifier.make(prefix: "att")), \(appID), \(purchaseID), \(claimant.rawValue), \(outcome.label), \(now))
        """
    }

    static func recordAttempt(
        appID: String, tokenHash: String, claimant: AppUserID, outcome: RedemptionOutcome, now: Date, on connection: any SQLConnection
    ) async throws {
        let purchaseID: String? =
            switch outcome {
            case .redeemed(let purchase, _), .subscriptionExpired(let purchase), .expired(let purchase): purchase.id
            case .belongsToOtherUser, .offerRefused:
                try await connection.first("SELECT purchase_id FROM redemption_tokens WHERE token_hash = \(tokenHash) AND app_id = \(appID)")?
                    .optionalString("purchase_id")
            case .invalid, .otherApp: nil
            }
        try await connection.query(attemptInsert(appID: appID, purchaseID: purchaseID, claimant: claimant, outcome: outcome, now: now))
    }
}

/// A redemption's outcome and, when redeemed, what the redeem route answers with.
public struct DescribedRedemption: Sendable {
    public let outcome: RedemptionOutcome
    /// The claimant's CustomerInfo as committed with the redemption.
    public var customerInfo: CustomerInfo?
    /// The redeemed purchase's product, with its entitlements.
    public var product: Product?
}

extension RedemptionOutcome {
    /// The purchase, when the claimant now has it (redeemed, or redeemed with a lapsed subscription).
    var redeemedPurchase: Purchase? {
        switch self {
        case .redeemed(let purchase, _), .subscriptionExpired(let purchase): purchase
        case .invalid, .otherApp, .belongsToOtherUser, .expired, .offerRefused: nil
        }
    }
}

/// A token as a browser page sees it: read-only, never consuming.
public struct RedemptionTokenState: Sendable {
    public let appID: String
    public let purchaseID: String
    public let expiresAt: Date
    public let consumedAt: Date?
    public let openedAt: Date?
}

extension SQLStore {
    public func redemptionTokenState(tokenHash: String) async throws -> RedemptionTokenState? {
        try await read { connection in
            try await connection.first("SELECT * FROM redemption_tokens WHERE token_hash = \(tokenHash)").map { row in
                RedemptionTokenState(
                    appID: try row.string("app_id"), purchaseID: try row.string("purchase_id"),
                    expiresAt: try row.date("expires_at"), consumedAt: row.optionalDate("consumed_at"),
                    openedAt: row.optionalDate("opened_at")
                )
            }
        }
    }
}

extension SQLStore {
    /// Records the first time a link's page was opened (by the buyer or a mail scanner); later opens change nothing.
    public func markLinkOpened(tokenHash: String, now: Date) async throws {
        try await write { connection in
            try await connection.query("UPDATE redemption_tokens SET opened_at = \(now) WHERE token_hash = \(tokenHash) AND opened_at IS NULL")
        }
    }
}

/// One presentation of a redemption token, for support.
public struct RedemptionAttempt: Codable, Hashable, Sendable {
    public let id: String
    public let appUserID: String
    public let outcome: String
    public let createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id, outcome
        case appUserID = "app_user_id"
        case createdAt = "created_at"
    }
}

extension SQLStore {
    /// Every attempt to redeem one of a purchase's links, oldest first.
    public func redemptionAttempts(appID: String, purchaseID: String) async throws -> [RedemptionAttempt] {
        try await read { connection in
            try await connection.query(
                """
                SELECT * FROM redemption_attempts WHERE app_id = \(appID) AND purchase_id = \(purchaseID) ORDER BY created_at, id
                """
            ).map { row in
                RedemptionAttempt(
                    id: try row.string("id"), appUserID: try row.string("app_user_id"), outcome: try row.string("outcome"),
                    createdAt: try row.date("created_at")
                )
            }
        }
    }
}
