import Foundation
import PostgresNIO
import RedeemCore

/// A redemption on PostgreSQL in two statements after the rate limit, for the common case: a fresh link, an identified
/// claimant, a purchase the app's restore behaviour transfers, and no webhook endpoint to tell.
///
/// Facts in, decision out, without a transaction held across the decision: one read gathers the facts, Core's
/// `RedemptionRules.decide` decides as on the transactional path, and one statement of data-modifying CTEs applies the
/// decision (claim, claimant, move, attempt) and returns the claimant's Customer Info. That statement re-checks what the
/// decision rested on: the claim only succeeds on a fresh token, and the move only while the purchase still has the
/// owner that was read; when the claim succeeded but the move did not, `redeem_assert` (migration 18) undoes the whole
/// statement. Anything else, or any such conflict, goes the transactional way (`redeem(…)`), which decides every case.
extension SQLStore {
    struct FastFacts {
        let purchase: Purchase
        let ownerIDs: [String]
        let restoreBehavior: RestoreBehavior
        let claimant: Customer?
        let ownerHasActiveSubscription: Bool
    }

    /// nil: take the transactional path.
    func fastRedemption(appID: String, tokenHash: String, claimant: AppUserID, now: Date) async throws -> DescribedRedemption? {
        guard database.engine == .postgres, !claimant.isAnonymous else { return nil }
        guard let facts = try await read({ try await Self.fastFacts(appID: appID, tokenHash: tokenHash, claimant: claimant, now: now, on: $0) })
        else { return nil }
        let claimantID = facts.claimant?.id ?? Identifier.make(prefix: "cus")
        var ruleFacts = RedemptionFacts(
            ownerCustomerID: facts.purchase.customerID, ownerIDs: facts.ownerIDs, claimantCustomerID: claimantID,
            claimantIDs: [claimant.rawValue], behavior: facts.restoreBehavior)
        if RedemptionRules.needsOwnerSubscriptionState(ruleFacts) { ruleFacts.ownerHasActiveSubscription = facts.ownerHasActiveSubscription }
        guard RedemptionRules.decide(ruleFacts) == .transfer else { return nil }
        var moved = facts.purchase
        moved.customerID = claimantID
        let outcome: RedemptionOutcome =
            RedemptionRules.isLapsed(moved, at: now) ? .subscriptionExpired(moved) : .redeemed(moved, association: .transfer)
        let statement = Self.fastApply(
            appID: appID, tokenHash: tokenHash, claimant: claimant, claimantID: claimantID, isNew: facts.claimant == nil,
            purchase: facts.purchase, outcome: outcome, now: now)
        let rows: [SQLRow]
        do {
            rows = try await read { try await $0.query(statement) }
        } catch let error as StoreError where error.isConflict {
            return nil  // the claimant was created meanwhile (a unique violation)
        } catch let error where Self.isAssertion(error) {
            return nil  // the purchase moved meanwhile
        }
        guard let snapshot = try Self.snapshot(appID: appID, rows: rows) else { return nil }  // the token was taken meanwhile
        return DescribedRedemption(
            outcome: outcome,
            customerInfo: CustomerInfo(customer: snapshot.customer, purchases: snapshot.purchases, products: snapshot.products, requestDate: now),
            product: snapshot.products[moved.productID])
    }

    /// The token with its purchase and what deciding needs; nil when the token is not fresh, or the app has a live
    /// webhook endpoint (its events are built on the transactional path).
    static func fastFacts(
        appID: String, tokenHash: String, claimant: AppUserID, now: Date, on connection: any SQLConnection
    ) async throws
        -> FastFacts?
    {
        let rows = try await connection.query(
            """
            SELECT p.*, a.restore_behavior AS app_restore_behavior, ca.app_user_id AS owner_app_user_id,
                EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.app_id = p.app_id AND w.disabled_at IS NULL) AS app_has_endpoint,
                EXISTS (SELECT 1 FROM purchases s WHERE s.customer_id = p.customer_id AND s.expires_date IS NOT NULL
                    AND s.expires_date > \(now) AND s.refunded_at IS NULL) AS owner_has_active_subscription,
                \(unsafeRaw: claimantColumns)
            FROM redemption_tokens t JOIN purchases p ON p.id = t.purchase_id JOIN apps a ON a.id = p.app_id
            LEFT JOIN customer_aliases ca ON ca.customer_id = p.customer_id
            \(sql: claimantJoin(claimant))
            WHERE t.token_hash = \(tokenHash) AND t.app_id = \(appID) AND p.app_id = \(appID)
                AND t.consumed_at IS NULL AND t.expires_at > \(now)
            """)
        guard let row = rows.first, !(try row.bool("app_has_endpoint")) else { return nil }
        return FastFacts(
            purchase: try Purchase(row: row), ownerIDs: rows.compactMap { $0.optionalString("owner_app_user_id") },
            restoreBehavior: try row.enumeration("app_restore_behavior"), claimant: try claimantCustomer(row, appID: appID),
            ownerHasActiveSubscription: try row.bool("owner_has_active_subscription"))
    }

    /// Claim, claimant (created, or its `last_seen` moved on), move, attempt, all or nothing, answering with the
    /// claimant's rows as `snapshot(appID:rows:)` reads them; no rows when the token was taken meanwhile.
    static func fastApply(
        appID: String, tokenHash: String, claimant: AppUserID, claimantID: String, isNew: Bool, purchase: Purchase,
        outcome: RedemptionOutcome, now: Date
    ) -> SQL {
        let touchClaimant: SQL =
            isNew
            ? """
            claimant AS (
                INSERT INTO customers (id, app_id, original_app_user_id, first_seen, last_seen)
                SELECT \(claimantID), \(appID), \(claimant.rawValue), \(now), \(now) FROM claimed RETURNING *),
            aliased AS (
                INSERT INTO customer_aliases (app_id, app_user_id, customer_id, created_at)
                SELECT \(appID), \(claimant.rawValue), id, \(now) FROM claimant RETURNING customer_id),
            """
            : """
            claimant AS (
                UPDATE customers SET last_seen = GREATEST(last_seen, \(now))
                WHERE id = \(claimantID) AND EXISTS (SELECT 1 FROM claimed) RETURNING *),
            """
        return """
            WITH claimed AS (
                UPDATE redemption_tokens SET consumed_at = \(now), consumed_by = \(claimant.rawValue)
                WHERE token_hash = \(tokenHash) AND app_id = \(appID) AND consumed_at IS NULL AND expires_at > \(now)
                RETURNING purchase_id),
            \(sql: touchClaimant)
            moved AS (
                UPDATE purchases SET customer_id = \(claimantID)
                WHERE id = \(purchase.id) AND customer_id = \(purchase.customerID) AND EXISTS (SELECT 1 FROM claimed) RETURNING *),
            attempt AS (
                INSERT INTO redemption_attempts (id, app_id, purchase_id, app_user_id, outcome, created_at)
                SELECT \(Identifier.make(prefix: "att")), \(appID), id, \(claimant.rawValue), \(outcome.label), \(now) FROM moved),
            checked AS (
                SELECT redeem_assert((SELECT COUNT(*) FROM moved) = (SELECT COUNT(*) FROM claimed), 'the purchase changed owner') AS ok)
            SELECT cu.id AS customer_ref, cu.original_app_user_id, cu.first_seen, cu.last_seen, p.*,
                pr.type AS product_type, pr.period AS product_period, pr.display_name AS product_display_name, pe.entitlement_id,
                (SELECT ok FROM checked) AS checked
            FROM claimant cu
            LEFT JOIN (
                SELECT * FROM purchases WHERE customer_id = \(claimantID) AND id <> \(purchase.id)
                UNION ALL SELECT * FROM moved
            ) p ON TRUE
            LEFT JOIN products pr ON pr.app_id = p.app_id AND pr.id = p.product_id
            LEFT JOIN product_entitlements pe ON pe.app_id = pr.app_id AND pe.product_id = pr.id
            ORDER BY p.purchase_date, p.id, pe.entitlement_id
            """
    }

    static func isAssertion(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.sqlState] == "RD001"
    }
}
