import Foundation
import RedeemCore

/// A redemption on PostgreSQL in two statements after the rate limit, for the common cases: a fresh link and an
/// identified claimant; the purchase either moves to the claimant (the app's restore behaviour transfers it) or, bought
/// anonymously on the web, its customer merges into the claimant's. The app's webhook events are queued by the same
/// statement (`SQLStore+RedemptionFastPathEvents`).
///
/// Facts in, decision out, without a transaction held across the decision: one read gathers the facts, Core's
/// `RedemptionRules.decide` decides as on the transactional path, and one statement of data-modifying CTEs applies the
/// decision (claim, claimant, move or merge, attempt) and returns the claimant's Customer Info. That statement re-checks
/// what the decision rested on: the claim only succeeds on a fresh token, the move only while the purchase still has
/// the owner that was read, and a merge only while that owner is still there and anonymous; when the claim succeeded
/// but the rest did not, `redeem_assert` (migration 18) undoes the whole statement. Anything else, or any such
/// conflict, goes the transactional way (`redeem(…)`), which decides every case.
extension SQLStore {
    struct FastFacts {
        let purchase: Purchase
        let ownerIDs: [String]
        let restoreBehavior: RestoreBehavior
        let claimant: Customer?
        /// The owner's purchases, for Core to judge whether one is an active subscription.
        let ownerPurchases: [AccessFacts]
        /// A merge here would drop the owner's subscriber attributes; `merge(_:into:)` keeps them, so then it decides.
        let ownerHasAttributes: Bool
        /// What the webhook events need; nil when the app has no live endpoint.
        let events: FastEvents?
    }

    /// nil: take the transactional path.
    func fastRedemption(appID: String, tokenHash: String, claimant: AppUserID, now: Date) async throws -> DescribedRedemption? {
        guard database.engine == .postgres, !claimant.isAnonymous else { return nil }
        // A purchase an offer code made is checked again against the claimant, which only the transactional path does.
        guard let facts = try await read({ try await Self.fastFacts(appID: appID, tokenHash: tokenHash, claimant: claimant, now: now, on: $0) }),
            facts.purchase.offer == nil
        else { return nil }
        let claimantID = facts.claimant?.id ?? Identifier.make(prefix: "cus")
        var ruleFacts = RedemptionFacts(
            ownerCustomerID: facts.purchase.customerID, ownerIDs: facts.ownerIDs, claimantCustomerID: claimantID,
            claimantIDs: [claimant.rawValue], behavior: facts.restoreBehavior, now: now)
        if RedemptionRules.needsOwnerSubscriptionState(ruleFacts) { ruleFacts.ownerPurchases = facts.ownerPurchases }
        let decision = RedemptionRules.decide(ruleFacts)
        guard let association = decision.association, decision == .transfer || decision == .alias(survivor: .claimant),
            association != .alias || !facts.ownerHasAttributes
        else { return nil }
        var moved = facts.purchase
        moved.customerID = claimantID
        let outcome: RedemptionOutcome =
            RedemptionRules.isLapsed(moved, at: now) ? .subscriptionExpired(moved) : .redeemed(moved, association: association)
        let deliveries =
            facts.events.map {
                Self.fastDeliveries(
                    $0, moved: moved, previousOwnerID: facts.purchase.customerID, claimant: claimant, claimantID: claimantID,
                    known: facts.claimant, merges: association == .alias, now: now)
            } ?? []
        let statement = Self.fastApply(
            appID: appID, tokenHash: tokenHash, claimant: claimant, claimantID: claimantID, isNew: facts.claimant == nil,
            merges: association == .alias, ownerIDs: facts.ownerIDs, purchase: facts.purchase, outcome: outcome, deliveries: deliveries,
            endpoints: facts.events?.endpointIDs ?? [], now: now)
        let rows: [SQLRow]
        do {
            rows = try await single { try await $0.query(statement) }
        } catch let error as StoreError where error.isConflict {
            return nil  // the claimant was created meanwhile (a unique violation)
        } catch let error as StoreError where error.isRaceLost {
            return nil  // the purchase or its owner changed meanwhile
        }
        // No claimant row: the token was taken meanwhile.
        guard rows.first?.optionalString("customer_ref") != nil, let snapshot = try Self.snapshot(appID: appID, rows: rows) else { return nil }
        return DescribedRedemption(
            outcome: outcome,
            customerInfo: CustomerInfo(customer: snapshot.customer, purchases: snapshot.purchases, products: snapshot.products, requestDate: now),
            product: snapshot.products[moved.productID])
    }

    /// The token with its purchase, what deciding needs and, when the app has a live webhook endpoint, what its events
    /// need; nil when the token is not fresh.
    /// The owner's purchases come as a scalar subquery of their access facts (Core judges them), not as a predicate:
    /// PostgreSQL once turned an `EXISTS` on future expiries into a hashed scan of every such purchase (50 ms a read).
    static func fastFacts(
        appID: String, tokenHash: String, claimant: AppUserID, now: Date, on connection: any SQLConnection
    ) async throws
        -> FastFacts?
    {
        let rows = try await connection.query(
            """
            SELECT p.*, a.restore_behavior AS app_restore_behavior, ca.app_user_id AS owner_app_user_id,
                \(sql: eventColumns(claimant: claimant, now: now)),
                (SELECT json_agg(json_build_array(s.expires_date, s.grace_period_expires_date, s.refunded_at))::text
                    FROM purchases s WHERE s.customer_id = p.customer_id) AS owner_purchases,
                EXISTS (SELECT 1 FROM subscriber_attributes sa WHERE sa.customer_id = p.customer_id) AS owner_has_attributes,
                \(unsafeRaw: claimantColumns)
            FROM redemption_tokens t JOIN purchases p ON p.id = t.purchase_id JOIN apps a ON a.id = p.app_id
            LEFT JOIN customer_aliases ca ON ca.customer_id = p.customer_id
            \(sql: claimantJoin(claimant))
            \(sql: endpointsJoin(appID: appID))
            WHERE t.token_hash = \(tokenHash) AND t.app_id = \(appID) AND p.app_id = \(appID)
                AND t.consumed_at IS NULL AND t.expires_at > \(now)
            """)
        guard let row = rows.first else { return nil }
        return FastFacts(
            purchase: try Purchase(row: row), ownerIDs: rows.compactMap { $0.optionalString("owner_app_user_id") },
            restoreBehavior: try row.enumeration("app_restore_behavior"), claimant: try claimantCustomer(row, appID: appID),
            ownerPurchases: try AccessFacts.list(json: row.optionalString("owner_purchases")),
            ownerHasAttributes: try row.bool("owner_has_attributes"), events: try fastEvents(row))
    }

    /// Claim, claimant (created, or its `last_seen` moved on), move or merge, attempt, all or nothing, answering with the
    /// claimant's rows as `snapshot(appID:rows:)` reads them (one row with no claimant when the token was taken
    /// meanwhile). The assertion is the outer side of the answer's join, so it runs whatever else matched. A merge does in
    /// one statement what `merge(_:into:)` does: the owner's aliases, purchases and offer redemptions go to the
    /// claimant, which keeps the earlier first and later last sighting, and the owner's customer is deleted.
    static func fastApply(
        appID: String, tokenHash: String, claimant: AppUserID, claimantID: String, isNew: Bool, merges: Bool, ownerIDs: [String],
        purchase: Purchase,
        outcome: RedemptionOutcome, deliveries: [[SQLValue]], endpoints: [String], now: Date
    ) -> SQL {
        let ownerID = purchase.customerID
        // What the claimant's sightings become: now, or for a merge also the owner's.
        let sightings: SQL =
            merges
            ? "owner AS (SELECT first_seen, last_seen FROM customers WHERE id = \(ownerID) AND EXISTS (SELECT 1 FROM claimed)),"
            : "owner AS (SELECT \(now) AS first_seen, \(now) AS last_seen FROM claimed),"
        let touchClaimant: SQL =
            isNew
            ? """
            claimant AS (
                INSERT INTO customers (id, app_id, original_app_user_id, first_seen, last_seen)
                SELECT \(claimantID), \(appID), \(claimant.rawValue), LEAST(first_seen, \(now)), GREATEST(last_seen, \(now)) FROM owner
                RETURNING *),
            aliased AS (
                INSERT INTO customer_aliases (app_id, app_user_id, customer_id, created_at)
                SELECT \(appID), \(claimant.rawValue), id, \(now) FROM claimant RETURNING customer_id),
            """
            : """
            claimant AS (
                UPDATE customers c SET first_seen = \(unsafeRaw: merges ? "LEAST(c.first_seen, o.first_seen)" : "c.first_seen"),
                    last_seen = GREATEST(c.last_seen, o.last_seen, \(now))
                FROM owner o WHERE c.id = \(claimantID) RETURNING c.*),
            """
        // A merge moves everything the owner has and deletes it; a transfer moves the one purchase.
        let move: SQL =
            merges
            ? """
            owner_aliases AS (
                UPDATE customer_aliases SET customer_id = \(claimantID)
                WHERE customer_id = \(ownerID) AND EXISTS (SELECT 1 FROM claimed) RETURNING app_user_id),
            moved AS (
                UPDATE purchases SET customer_id = \(claimantID)
                WHERE customer_id = \(ownerID) AND EXISTS (SELECT 1 FROM claimed) RETURNING *),
            owner_offers AS (
                UPDATE offer_redemptions SET customer_id = \(claimantID) WHERE customer_id = \(ownerID) AND EXISTS (SELECT 1 FROM claimed)
                    AND offer_id NOT IN (SELECT offer_id FROM offer_redemptions WHERE customer_id = \(claimantID))),
            dropped AS (DELETE FROM customers WHERE id = \(ownerID) AND EXISTS (SELECT 1 FROM claimed) RETURNING id),
            """
            : """
            moved AS (
                UPDATE purchases SET customer_id = \(claimantID)
                WHERE id = \(purchase.id) AND customer_id = \(ownerID) AND EXISTS (SELECT 1 FROM claimed) RETURNING *),
            """
        // The merge was decided (in Core, anonymity included) on the owner's IDs as read: an owner deleted meanwhile, or
        // any alias it gained, means the facts changed. IDs hold no control characters, so a newline separates them.
        let readIDs = ownerIDs.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.joined(separator: "\n")
        let mergeHeld: SQL =
            merges
            ? """
            AND (SELECT COUNT(*) FROM dropped) = (SELECT COUNT(*) FROM claimed)
                AND NOT EXISTS (SELECT 1 FROM subscriber_attributes WHERE customer_id = \(ownerID))
                AND (NOT EXISTS (SELECT 1 FROM claimed)
                    OR COALESCE((SELECT string_agg(app_user_id, E'\\n' ORDER BY app_user_id COLLATE "C") FROM owner_aliases), '') = \(readIDs))
            """
            : ""
        return """
            WITH claimed AS (
                UPDATE redemption_tokens SET consumed_at = \(now), consumed_by = \(claimant.rawValue)
                WHERE token_hash = \(tokenHash) AND app_id = \(appID) AND consumed_at IS NULL AND expires_at > \(now)
                RETURNING purchase_id),
            \(sql: sightings)
            \(sql: touchClaimant)
            \(sql: move)
            attempt AS (
                INSERT INTO redemption_attempts (id, app_id, purchase_id, app_user_id, outcome, created_at)
                SELECT \(Identifier.make(prefix: "att")), \(appID), id, \(claimant.rawValue), \(outcome.label), \(now) FROM moved
                WHERE id = \(purchase.id)),
            \(sql: deliveriesInsert(deliveries, once: "moved", holds: purchase.id))
            checked AS (
                SELECT redeem_assert(
                    (SELECT COUNT(*) FROM moved WHERE id = \(purchase.id)) = (SELECT COUNT(*) FROM claimed) \(sql: mergeHeld)
                        AND COALESCE(\(sql: liveEndpointsSignature(appID: "\(appID)")), '') = \(endpoints.joined(separator: ",")),
                    'the purchase, its owner or the webhook endpoints changed') AS ok)
            \(sql: oneStatementAnswer(claimantID: claimantID, added: "moved"))
            """
    }

    /// The answer of a one-statement path: the claimant's rows as `snapshot(appID:rows:)` reads them, with the purchases
    /// the CTE named `added` moved or inserted. `checked` (the statement's assertion) is the outer side of the join, so
    /// it runs even when the claimant's CTE (`claimant`) returns nothing; then one row comes back with no claimant.
    static func oneStatementAnswer(claimantID: String, added: String) -> SQL {
        """
        SELECT cu.id AS customer_ref, cu.original_app_user_id, cu.first_seen, cu.last_seen, p.*,
            pr.type AS product_type, pr.period AS product_period, pr.display_name AS product_display_name, pe.entitlement_id,
            checked.ok AS checked
        FROM checked
        LEFT JOIN claimant cu ON TRUE
        LEFT JOIN (
            SELECT * FROM purchases WHERE customer_id = \(claimantID) AND id NOT IN (SELECT id FROM \(unsafeRaw: added))
            UNION ALL SELECT * FROM \(unsafeRaw: added)
        ) p ON cu.id IS NOT NULL
        LEFT JOIN products pr ON pr.app_id = p.app_id AND pr.id = p.product_id
        LEFT JOIN product_entitlements pe ON pe.app_id = pr.app_id AND pe.product_id = pr.id
        ORDER BY p.purchase_date, p.id, pe.entitlement_id
        """
    }
}
