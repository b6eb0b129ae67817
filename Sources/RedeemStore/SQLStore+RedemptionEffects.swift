import Foundation
import RedeemCore

/// A redemption's write as Core decided it (`RedemptionEffects`), with what the store adds: the outcome it answers
/// and the webhook deliveries, their bodies built in Swift.
struct RedemptionWrite: Sendable {
    let effects: RedemptionEffects
    let outcome: RedemptionOutcome
    /// Queued with the rest; empty when the events are queued by the caller (the transactional path's `emit`).
    var deliveries: [[SQLValue]] = []
}

/// The two renderings of one `RedemptionEffects`: statements run one by one in the transactional path's transaction
/// (`apply`, both engines), and one statement of data-modifying CTEs on PostgreSQL (`oneStatement`) that re-checks
/// what the effects rest on and raises `redeem_assert` (migration 18) when the claim matched but the rest did not.
extension SQLStore {
    /// The claim: one conditional update decides, however many redeem at once.
    static func claimStatement(appID: String, tokenHash: String, claimant: AppUserID, now: Date) -> SQL {
        """
        UPDATE redemption_tokens SET consumed_at = \(now), consumed_by = \(claimant.rawValue)
        WHERE token_hash = \(tokenHash) AND app_id = \(appID) AND consumed_at IS NULL AND expires_at > \(now)
        RETURNING purchase_id
        """
    }

    /// The outcome the effects come to, for `purchase` as read.
    static func outcome(_ effects: RedemptionEffects, purchase: Purchase) -> RedemptionOutcome {
        guard effects.claims else { return .belongsToOtherUser }
        var moved = purchase
        moved.customerID = effects.survivorID
        return effects.lapsed ? .subscriptionExpired(moved) : .redeemed(moved, association: effects.decision.association)
    }

    static func attemptValues(_ write: RedemptionWrite) -> SQL {
        let effects = write.effects
        return """
            \(effects.attemptID), \(effects.appID), \(effects.purchaseID), \(effects.claimant.rawValue), \(write.outcome.label), \(effects.at)
            """
    }

    /// The effects statement by statement; `claiming` false when the caller's transaction has claimed the token already.
    static func apply(_ write: RedemptionWrite, claiming: Bool, on connection: any SQLConnection) async throws {
        let effects = write.effects
        let attempt: SQL =
            "INSERT INTO redemption_attempts (id, app_id, purchase_id, app_user_id, outcome, created_at) VALUES (\(sql: attemptValues(write)))"
        guard effects.claims else {
            try await connection.query(attempt)
            return
        }
        let (appID, now, claimant) = (effects.appID, effects.at, effects.claimant.rawValue)
        if claiming,
            try await connection.first(claimStatement(appID: appID, tokenHash: effects.tokenHash, claimant: effects.claimant, now: now)) == nil
        {
            throw StoreError.conflict("redemption token changed concurrently")
        }
        // A claimant created meanwhile: the facts changed, and the caller decides again.
        let created: Bool
        switch effects.claimantCustomer {
        case .create(let id):
            created = try await insertCustomer(
                id: id, appID: appID, appUserID: claimant, firstSeen: effects.firstSeen, lastSeen: effects.lastSeen, aliasedAt: now,
                on: connection)
        case .joinOwner:
            created = try await !connection.query(
                """
                INSERT INTO customer_aliases (app_id, app_user_id, customer_id, created_at) VALUES (\(appID), \(claimant), \(effects.ownerID), \(now))
                ON CONFLICT (app_id, app_user_id) DO NOTHING RETURNING customer_id
                """
            ).isEmpty
        case .existing: created = true
        }
        guard created else { throw StoreError.conflict("customer '\(claimant)' created concurrently") }
        switch effects.ownership {
        case .unchanged: break
        case .transfer:
            try await connection.query(
                "UPDATE purchases SET customer_id = \(effects.survivorID) WHERE id = \(effects.purchaseID) AND customer_id = \(effects.ownerID)")
        case .merge(let source, let target):
            try await moveEverything(from: source, into: target, on: connection)
            try await connection.query("DELETE FROM customers WHERE id = \(source)")
        }
        if !effects.createsClaimant {
            let (least, greatest) = connection.engine == .postgres ? ("LEAST", "GREATEST") : ("MIN", "MAX")
            try await connection.query(
                """
                UPDATE customers SET first_seen = \(unsafeRaw: least)(first_seen, \(effects.firstSeen)),
                    last_seen = \(unsafeRaw: greatest)(last_seen, \(effects.lastSeen))
                WHERE id = \(effects.survivorID)
                """)
        }
        try await connection.query(attempt)
        if !write.deliveries.isEmpty {
            try await connection.query("INSERT INTO webhook_deliveries \(sql: deliveryColumns) \(sql: .values(write.deliveries))")
        }
    }

    /// The effects as one statement (PostgreSQL), answering with the survivor's rows as `snapshot(appID:rows:)` reads
    /// them, or one row with no customer when the token was taken meanwhile. A refusal is the attempt alone.
    static func oneStatement(_ write: RedemptionWrite) -> SQL {
        let effects = write.effects
        guard effects.claims else {
            return "INSERT INTO redemption_attempts (id, app_id, purchase_id, app_user_id, outcome, created_at) VALUES (\(sql: attemptValues(write)))"
        }
        let (appID, now, claimant, survivor, owner) = (effects.appID, effects.at, effects.claimant.rawValue, effects.survivorID, effects.ownerID)
        let onClaim: SQL = "EXISTS (SELECT 1 FROM claimed)"
        var steps: [SQL] = [
            "claimed AS (\(sql: claimStatement(appID: appID, tokenHash: effects.tokenHash, claimant: effects.claimant, now: now)))"
        ]
        // `claimant`: the survivor's row, created or with its sightings widened; the answer reads it.
        switch effects.claimantCustomer {
        case .create(let id):
            steps.append(
                """
                claimant AS (
                    INSERT INTO customers (id, app_id, original_app_user_id, first_seen, last_seen)
                    SELECT \(id), \(appID), \(claimant), \(effects.firstSeen), \(effects.lastSeen) FROM claimed RETURNING *)
                """)
            steps.append(
                """
                aliased AS (
                    INSERT INTO customer_aliases (app_id, app_user_id, customer_id, created_at)
                    SELECT \(appID), \(claimant), id, \(now) FROM claimant)
                """)
        case .joinOwner, .existing:
            if effects.claimantCustomer == .joinOwner {
                steps.append(
                    """
                    aliased AS (
                        INSERT INTO customer_aliases (app_id, app_user_id, customer_id, created_at)
                        SELECT \(appID), \(claimant), \(owner), \(now) FROM claimed)
                    """)
            }
            steps.append(
                """
                claimant AS (
                    UPDATE customers SET first_seen = LEAST(first_seen, \(effects.firstSeen)), last_seen = GREATEST(last_seen, \(effects.lastSeen))
                    WHERE id = \(survivor) AND \(sql: onClaim) RETURNING *)
                """)
        }
        // `moved`: the purchases that changed customer. A merge's moves are `moveEverything`'s, as CTEs: they all see
        // one snapshot, so the attributes are one upsert (each key's latest write wins) instead of a delete and a move.
        var held: SQL = "held AS (SELECT id FROM moved WHERE id = \(effects.purchaseID))"
        var mergeHeld: SQL = ""
        switch effects.ownership {
        case .unchanged:
            steps.append("moved AS (SELECT * FROM purchases WHERE FALSE)")
        case .transfer:
            steps.append(
                """
                moved AS (
                    UPDATE purchases SET customer_id = \(survivor)
                    WHERE id = \(effects.purchaseID) AND customer_id = \(owner) AND \(sql: onClaim) RETURNING *)
                """)
        case .merge(let source, let target):
            steps.append(
                """
                source_aliases AS (
                    UPDATE customer_aliases SET customer_id = \(target) WHERE customer_id = \(source) AND \(sql: onClaim) RETURNING app_user_id),
                moved AS (UPDATE purchases SET customer_id = \(target) WHERE customer_id = \(source) AND \(sql: onClaim) RETURNING *),
                source_offers AS (
                    UPDATE offer_redemptions SET customer_id = \(target) WHERE customer_id = \(source) AND \(sql: onClaim)
                        AND offer_id NOT IN (SELECT offer_id FROM offer_redemptions WHERE customer_id = \(target))),
                source_attributes AS (
                    INSERT INTO subscriber_attributes (customer_id, key, value, updated_at, from_backend)
                    SELECT \(target), key, value, updated_at, from_backend FROM subscriber_attributes WHERE customer_id = \(source) AND \(sql: onClaim)
                    ON CONFLICT (customer_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at,
                        from_backend = excluded.from_backend
                    WHERE excluded.updated_at > subscriber_attributes.updated_at),
                source_override AS (\(sql: offeringOverrideCarried(from: source, into: target, when: onClaim))),
                dropped AS (DELETE FROM customers WHERE id = \(source) AND \(sql: onClaim) RETURNING id)
                """)
            // The merge was decided on the source's IDs as read (its anonymity): it must still exist with exactly
            // those. IDs hold no control characters, so a newline separates them.
            let readIDs = effects.sourceIDs.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.joined(separator: "\n")
            mergeHeld = """
                AND (SELECT COUNT(*) FROM dropped) = (SELECT COUNT(*) FROM claimed)
                    AND (NOT \(sql: onClaim)
                        OR COALESCE((SELECT string_agg(app_user_id, E'\\n' ORDER BY app_user_id COLLATE "C") FROM source_aliases), '') = \(readIDs))
                """
        }
        if !effects.movesPurchase {
            // The purchase stays with its owner: locked, so a move committed meanwhile is seen (and undoes this).
            held = """
                held AS (
                    SELECT id FROM purchases WHERE id = \(effects.purchaseID) AND customer_id = \(owner) AND \(sql: onClaim) FOR UPDATE)
                """
        }
        steps.append(held)
        steps.append(
            """
            attempt AS (
                INSERT INTO redemption_attempts (id, app_id, purchase_id, app_user_id, outcome, created_at)
                SELECT \(effects.attemptID), \(appID), id, \(claimant), \(write.outcome.label), \(now) FROM held)
            """)
        return """
            WITH \(sql: joined(steps))
            ,\(sql: deliveriesInsert(write.deliveries, once: "held", holds: effects.purchaseID))
            checked AS (
                SELECT redeem_assert(
                    (SELECT COUNT(*) FROM held) = (SELECT COUNT(*) FROM claimed) AND (SELECT COUNT(*) FROM claimant) = (SELECT COUNT(*) FROM claimed)
                        \(sql: mergeHeld)
                        AND COALESCE(\(sql: liveEndpointsSignature(appID: "\(appID)")), '') = \(effects.endpointIDs.joined(separator: ",")),
                    'the purchase, its customers or the webhook endpoints changed') AS ok)
            \(sql: oneStatementAnswer(claimantID: survivor, added: "moved", claimantIsNew: effects.createsClaimant))
            """
    }

    /// CTEs separated by commas.
    static func joined(_ steps: [SQL]) -> SQL {
        steps.dropFirst().reduce(steps.first ?? "") { "\(sql: $0),\n\(sql: $1)" }
    }
}
