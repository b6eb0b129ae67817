import Foundation
import RedeemCore
import Synchronization

/// A redemption on PostgreSQL in two statements after the rate limit: one read of the facts, and then either the
/// write Core decided (`RedemptionRules.effects`, rendered as one statement by `oneStatement`,
/// `SQLStore+RedemptionEffects`) or, for a refusal the facts decide (an unknown, another app's, expired or used
/// link, or the restore behaviour), the attempt alone.
///
/// No transaction is held across the decision: the statement re-checks what the effects rest on, and when the claim
/// matched but the rest did not, `redeem_assert` undoes it whole. Then, and in the cases this path leaves (a link
/// redeemed again by whoever used it, a purchase an offer code made), the transactional way (`redeem(…)`) decides.
extension SQLStore {
    struct FastFacts {
        let purchase: Purchase
        let ownerIDs: [String]
        let ownerFirstSeen: Date
        let ownerLastSeen: Date
        let restoreBehavior: RestoreBehavior
        let claimant: Customer?
        /// The claimant's customer's IDs, read only for an anonymous claimant (an identified ID decides alone).
        let claimantIDs: [String]?
        /// The owner's purchases, for Core to judge whether one is an active subscription.
        let ownerPurchases: [AccessFacts]
        /// The token as it is: its app, whether and by whom it was used, when it expires.
        let tokenAppID: String
        let consumed: Bool
        let consumedBy: String?
        let expiresAt: Date
        /// The app's live endpoints, by ID.
        let endpointIDs: [String]
        /// What the webhook events need; nil when the app has no live endpoint.
        let events: FastEvents?
    }

    /// What the facts read decided: a refusal (the attempt alone), the write, or the transactional path.
    enum FastPlan {
        case refusal(RedemptionOutcome, purchaseID: String?)
        case write(RedemptionWrite)
        case transactional
    }

    /// nil: take the transactional path.
    func fastRedemption(appID: String, tokenHash: String, claimant: AppUserID, now: Date) async throws -> DescribedRedemption? {
        guard database.engine == .postgres else { return nil }
        let endpoints = endpointsSeen
        let plan = try await read {
            try await Self.fastPlan(appID: appID, tokenHash: tokenHash, claimant: claimant, now: now, endpointsSeen: endpoints, on: $0)
        }
        switch plan {
        case .transactional:
            return nil
        case .refusal(let outcome, let purchaseID):
            let attempt = Self.attemptInsert(appID: appID, purchaseID: purchaseID, claimant: claimant, outcome: outcome, now: now)
            try await single { try await $0.query(attempt) }
            return DescribedRedemption(outcome: outcome)
        case .write(let write):
            guard let moved = write.outcome.redeemedPurchase else {
                let refusal = Self.oneStatement(write)
                try await single { try await $0.query(refusal) }
                return DescribedRedemption(outcome: write.outcome)
            }
            let statement = Self.oneStatement(write)
            let rows: [SQLRow]
            do {
                rows = try await single { try await $0.query(statement) }
            } catch let error as StoreError where error.isConflict {
                return nil  // the claimant was created meanwhile (a unique violation)
            } catch let error as StoreError where error.isRaceLost {
                return nil  // the purchase or a customer changed meanwhile
            }
            // No claimant row: the token was taken meanwhile.
            guard rows.first?.optionalString("customer_ref") != nil, let snapshot = try Self.snapshot(appID: appID, rows: rows) else { return nil }
            return DescribedRedemption(
                outcome: write.outcome,
                customerInfo: CustomerInfo(customer: snapshot.customer, purchases: snapshot.purchases, products: snapshot.products, requestDate: now),
                product: snapshot.products[moved.productID])
        }
    }

    /// Reads the facts (one statement) and decides, as the transactional path decides: a refusal the facts decide
    /// (with the token's own state, in `unclaimable`'s order), Core's effects, or the transactional path.
    /// What webhook events need is read only for an app that had live endpoints when last seen (`endpointsSeen`):
    /// the event columns cost more to start and plan than the rest of the read. An endpoint added since is seen by the
    /// read, which then runs again with them; the applying statement asserts the endpoints read in any case.
    static func fastPlan(
        appID: String, tokenHash: String, claimant: AppUserID, now: Date, endpointsSeen: LiveEndpointsSeen? = nil,
        on connection: any SQLConnection
    ) async throws -> FastPlan {
        let withEvents = endpointsSeen?.hadNone(appID: appID) != true
        guard
            var facts = try await fastFacts(appID: appID, tokenHash: tokenHash, claimant: claimant, now: now, withEvents: withEvents, on: connection)
        else {
            return .refusal(.invalid, purchaseID: nil)
        }
        if !withEvents, !facts.endpointIDs.isEmpty,
            let again = try await fastFacts(appID: appID, tokenHash: tokenHash, claimant: claimant, now: now, withEvents: true, on: connection)
        {
            facts = again
        }
        endpointsSeen?.record(appID: appID, hasEndpoints: !facts.endpointIDs.isEmpty)
        let purchase = facts.purchase
        guard facts.tokenAppID == appID else { return .refusal(.otherApp, purchaseID: nil) }
        if facts.consumed {
            // Redeemed again by whoever used it: the transactional path reads the answer.
            let again = RedemptionRules.consumedLinkRedeemsAgain(
                consumedBy: facts.consumedBy, claimant: claimant, claimantCustomerID: facts.claimant?.id, ownerCustomerID: purchase.customerID)
            return again ? .transactional : .refusal(.belongsToOtherUser, purchaseID: purchase.id)
        }
        guard facts.expiresAt > now else { return .refusal(.expired(purchase), purchaseID: purchase.id) }
        // A purchase an offer code made is checked again against the claimant, which only the transactional path does.
        guard purchase.offer == nil else { return .transactional }
        let claimantID = facts.claimant?.id ?? Identifier.make(prefix: "cus", now: now)
        var rule = RedemptionFacts(
            ownerCustomerID: purchase.customerID, ownerIDs: facts.ownerIDs, claimantCustomerID: claimantID,
            claimantIDs: facts.claimantIDs ?? [claimant.rawValue], behavior: facts.restoreBehavior, now: now)
        if RedemptionRules.needsOwnerSubscriptionState(rule) { rule.ownerPurchases = facts.ownerPurchases }
        let effects = RedemptionRules.effects(
            RedemptionClaimFacts(
                appID: appID, tokenHash: tokenHash, claimant: claimant, purchase: purchase, rule: rule, claimantIsNew: facts.claimant == nil,
                ownerFirstSeen: facts.ownerFirstSeen, ownerLastSeen: facts.ownerLastSeen,
                claimantFirstSeen: facts.claimant?.firstSeen ?? now, claimantLastSeen: facts.claimant?.lastSeen ?? now,
                endpointIDs: facts.endpointIDs),
            decision: RedemptionRules.decide(rule), attemptID: Identifier.make(prefix: "att", now: now))
        var write = RedemptionWrite(effects: effects, outcome: outcome(effects, purchase: purchase))
        if let events = facts.events, let moved = write.outcome.redeemedPurchase {
            write.deliveries = fastDeliveries(events, effects: effects, moved: moved, known: facts.claimant)
        }
        return .write(write)
    }

    /// The token with its purchase, what deciding needs and, `withEvents`, what webhook events need when the app has a
    /// live endpoint; nil when there is no such token. The token's own state comes too: the refusals it decides need no
    /// more. `appID`: the app redeeming; a token of another app is refused before the endpoints and the claimant (read
    /// for `appID`) matter.
    /// The owner's purchases come as a scalar subquery of their access facts (Core judges them), not as a predicate:
    /// PostgreSQL once turned an `EXISTS` on future expiries into a hashed scan of every such purchase (50 ms a read).
    /// Four tables are joined and the rest are subqueries: with the owner's aliases and the claimant joined too, the
    /// join search took 5 ms to plan, paid on each connection's first executions and after every invalidation.
    static func fastFacts(
        appID: String, tokenHash: String, claimant: AppUserID, now: Date, withEvents: Bool = true, on connection: any SQLConnection
    ) async throws -> FastFacts? {
        let claimantIDs: SQL =
            claimant.isAnonymous
            ? "(SELECT json_agg(app_user_id)::text FROM customer_aliases WHERE customer_id = cc.id)" : "NULL::text"
        let events: SQL = withEvents ? eventColumns(claimant: claimant, now: now) : "e.ids AS live_endpoints"
        let rows = try await connection.query(
            """
            SELECT p.*, a.restore_behavior AS app_restore_behavior,
                (SELECT json_agg(app_user_id)::text FROM customer_aliases WHERE customer_id = p.customer_id) AS owner_ids,
                oc.first_seen AS owner_first_seen, oc.last_seen AS owner_last_seen,
                t.app_id AS token_app_id, t.consumed_at AS token_consumed_at, t.consumed_by AS token_consumed_by,
                t.expires_at AS token_expires_at, \(sql: claimantIDs) AS claimant_ids,
                \(sql: events),
                (SELECT json_agg(json_build_array(s.expires_date, s.grace_period_expires_date, s.refunded_at))::text
                    FROM purchases s WHERE s.customer_id = p.customer_id) AS owner_purchases,
                \(unsafeRaw: claimantColumns)
            FROM redemption_tokens t JOIN purchases p ON p.id = t.purchase_id JOIN apps a ON a.id = p.app_id
            JOIN customers oc ON oc.id = p.customer_id
            \(sql: endpointsJoin(appID: appID))
            LEFT JOIN (
                SELECT c.* FROM customer_aliases cl JOIN customers c ON c.id = cl.customer_id
                WHERE cl.app_id = \(appID) AND cl.app_user_id = \(claimant.rawValue) OFFSET 0) cc ON TRUE
            WHERE t.token_hash = \(tokenHash)
            """)
        guard let row = rows.first else { return nil }
        let ownerIDs = try row.optionalString("owner_ids").map { try JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
        return FastFacts(
            purchase: try Purchase(row: row), ownerIDs: ownerIDs,
            ownerFirstSeen: try row.date("owner_first_seen"), ownerLastSeen: try row.date("owner_last_seen"),
            restoreBehavior: try row.enumeration("app_restore_behavior"), claimant: try claimantCustomer(row, appID: try row.string("app_id")),
            claimantIDs: try row.optionalString("claimant_ids").map { try JSONDecoder().decode([String].self, from: Data($0.utf8)) },
            ownerPurchases: try AccessFacts.list(json: row.optionalString("owner_purchases")),
            tokenAppID: try row.string("token_app_id"), consumed: row.optionalInt("token_consumed_at") != nil,
            consumedBy: row.optionalString("token_consumed_by"), expiresAt: try row.date("token_expires_at"),
            endpointIDs: row.optionalString("live_endpoints")?.split(separator: ",").map(String.init) ?? [],
            events: withEvents ? try fastEvents(row) : nil)
    }

    /// The answer of a one-statement path: the claimant's rows as `snapshot(appID:rows:)` reads them, with the purchases
    /// the CTE named `added` moved or inserted. `checked` (the statement's assertion) is the outer side of the join, so
    /// it runs even when the claimant's CTE (`claimant`) returns nothing; then one row comes back with no claimant.
    /// A claimant created by the statement has no purchases but those `added`.
    static func oneStatementAnswer(claimantID: String, added: String, claimantIsNew: Bool = false) -> SQL {
        let purchases: SQL =
            claimantIsNew
            ? "SELECT * FROM \(unsafeRaw: added)"
            : """
            SELECT * FROM purchases WHERE customer_id = \(claimantID) AND id NOT IN (SELECT id FROM \(unsafeRaw: added))
                UNION ALL SELECT * FROM \(unsafeRaw: added)
            """
        return """
            SELECT cu.id AS customer_ref, cu.original_app_user_id, cu.first_seen, cu.last_seen, p.*,
                pr.type AS product_type, pr.period AS product_period, pr.display_name AS product_display_name, pe.entitlement_id,
                checked.ok AS checked
            FROM checked
            LEFT JOIN claimant cu ON TRUE
            LEFT JOIN (\(sql: purchases)) p ON cu.id IS NOT NULL
            LEFT JOIN products pr ON pr.app_id = p.app_id AND pr.id = p.product_id
            LEFT JOIN product_entitlements pe ON pe.app_id = pr.app_id AND pe.product_id = pr.id
            ORDER BY p.purchase_date, p.id, pe.entitlement_id
            """
    }
}

/// Which apps had no live webhook endpoint when their last redemption's facts were read, so that the next read can
/// leave out what events need. Only a hint: the read sees the endpoints as they are and reads again when one was added.
/// Bounded: forgotten wholesale past `limit` apps (each then reads the event columns once more).
final class LiveEndpointsSeen: Sendable {
    private let without = Mutex<Set<String>>([])
    private let limit: Int

    init(limit: Int = 4096) { self.limit = limit }

    func hadNone(appID: String) -> Bool { without.withLock { $0.contains(appID) } }

    func record(appID: String, hasEndpoints: Bool) {
        without.withLock { apps in
            if hasEndpoints {
                apps.remove(appID)
            } else if !apps.contains(appID) {
                if apps.count >= limit { apps.removeAll() }
                apps.insert(appID)
            }
        }
    }
}
