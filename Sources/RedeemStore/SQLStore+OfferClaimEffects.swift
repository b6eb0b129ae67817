import Foundation
import RedeemCore
import RedeemWebhooks

/// An offer claim's effects (`OfferClaimEffects`, decided by Core from the facts read) rendered two ways: as the
/// statements the transactional path runs one by one (`applyOfferClaim`), and as one statement of data-modifying CTEs
/// on PostgreSQL (`offerClaimStatement`). Both write the same rows from the same value.
extension SQLStore {
    /// The claim's effects for `request`, decided from `facts` as both paths decide: nil when only the sequential path
    /// can tell (the quarter's quota stripes are not laid out yet).
    static func offerClaimEffects(
        _ request: OfferCodeRedemptionRequest, facts: OfferClaimFacts
    ) throws -> Result<OfferClaimEffects, OfferRedemptionFailure>? {
        let decision = OfferRules.decideClaim(
            facts, paid: request.payment != nil, channel: request.channel, at: request.now, first: Int.random(in: 0..<StripedCount.stripes))
        let (plan, codeFirst, quotaFirst): (OfferPlan, Int, Int)
        switch decision {
        case .refused(let failure): return .failure(failure)
        case .undecided: return nil
        case .granted(let value, let code, let quota): (plan, codeFirst, quotaFirst) = (value, code, quota)
        }
        var grant = PurchaseGrant(
            appID: request.appID, appUserID: request.claimant, productID: facts.found.product.id, store: request.store,
            isSandbox: request.isSandbox, purchaseDate: plan.purchaseDate, expiresDate: plan.expiresDate, periodType: plan.periodType,
            storeTransactionID: request.payment?.storeTransactionID, price: request.payment?.price, email: request.email)
        grant.offer = PurchaseOffer(facts.found.offer)
        grant.language = request.language
        grant.termsConsent = request.termsConsent
        let customerID = facts.claimant?.id ?? Identifier.make(prefix: "cus")
        let (purchase, _) = try purchaseInsert(grant, product: facts.found.product, customerID: customerID, now: request.now)
        return .success(
            OfferClaimEffects(
                appID: request.appID, appUserID: request.claimant, channel: request.channel, claimingAddress: request.claimingAddress,
                checkoutReference: request.checkoutReference, facts: facts, plan: plan, purchase: purchase, codeFirst: codeFirst,
                quotaFirst: quotaFirst, recordID: Identifier.make(prefix: "ored"), eventID: eventID(), now: request.now))
    }

    /// Sequentially, inside the caller's transaction: the claimant, the purchase, the record, the deliveries, then the
    /// two contended rows (the claim and the quota's count) last, so that on PostgreSQL their locks are held only until
    /// the commit that follows. With `answering`, the claimant's snapshot (the record riding on its read). Throws
    /// `OfferRefused` when the claim or the count finds no room, a conflict when the claimant was created meanwhile
    /// (the caller retries on fresh facts).
    static func applyOfferClaim(_ effects: OfferClaimEffects, answering: Bool, on connection: any SQLConnection) async throws -> Snapshot? {
        let (appID, user, now) = (effects.appID, effects.appUserID.rawValue, effects.now)
        switch effects.claimant {
        case .create(let id):
            guard try await insertCustomer(id: id, appID: appID, appUserID: user, firstSeen: now, lastSeen: now, aliasedAt: now, on: connection)
            else {
                throw StoreError.conflict("customer '\(user)' was created meanwhile")
            }
        case .touch(let id):
            try await connection.query("UPDATE customers SET last_seen = \(now) WHERE id = \(id) AND last_seen < \(now)")
        }
        try await connection.query(try purchaseInsert(effects.purchase, checkoutReference: effects.checkoutReference))
        let record = offerRecordInsert(effects)
        if !answering { try await connection.query(record) }
        let deliveries = offerClaimDeliveries(effects)
        if !deliveries.isEmpty { try await connection.query("INSERT INTO webhook_deliveries \(sql: deliveryColumns) \(sql: .values(deliveries))") }
        var snapshot: Snapshot?
        if answering {
            snapshot = try await Self.snapshot(appID: appID, appUserID: effects.appUserID, writing: record, on: connection)
            guard snapshot != nil else { throw StoreError.conflict("customer '\(user)' changed concurrently") }
        }
        try await claim(effects.claim, by: effects.appUserID, now: now, on: connection)
        try await countAgainstQuota(appID: appID, effects.quota, on: connection)
        return snapshot
    }

    /// As one statement (PostgreSQL): the claim and the count on stripes no other transaction holds, the claimant
    /// created or its `last_seen` moved on, the purchase, the record and the deliveries, all or nothing. `redeem_assert`
    /// re-checks that the claim and the count took, that the claimant exists and that the live endpoints are those read;
    /// otherwise nothing stays (`StoreError.raceLost`). Answers with the claimant's rows as `snapshot(appID:rows:)` reads them.
    static func offerClaimStatement(_ effects: OfferClaimEffects) throws -> SQL {
        let (appID, user, now) = (effects.appID, effects.appUserID.rawValue, effects.now)
        let claimant: SQL =
            switch effects.claimant {
            case .create(let id):
                """
                claimant AS (
                    INSERT INTO customers (id, app_id, original_app_user_id, first_seen, last_seen)
                    VALUES (\(id), \(appID), \(user), \(now), \(now)) RETURNING *),
                aliased AS (
                    INSERT INTO customer_aliases (app_id, app_user_id, customer_id, created_at) VALUES (\(appID), \(user), \(id), \(now))),
                """
            case .touch(let id):
                "claimant AS (UPDATE customers SET last_seen = GREATEST(last_seen, \(now)) WHERE id = \(id) RETURNING *),"
            }
        let claimed: SQL =
            switch effects.claim {
            case .oneTimeCode: claimStatement(effects.claim, by: effects.appUserID, now: now, stripe: 0)
            case .customCodeUse(let codeID, let limit, let first):
                unheldStripeIncrement("offer_custom_code_stripes", owner: usesOf(codeID: codeID), limit: limit, first: first)
            }
        let quota = effects.quota
        let purchaseID = effects.purchase.id
        return """
            WITH claimed AS (\(sql: claimed)),
            counted AS (\(sql: unheldStripeIncrement(
                "offer_quota_stripes", owner: quotaOf(appID: appID, quarter: quota.quarter), limit: quota.limit, first: quota.first))),
            \(sql: claimant)
            bought AS (\(sql: try purchaseInsert(effects.purchase, checkoutReference: effects.checkoutReference)) RETURNING *),
            recorded AS (\(sql: offerRecordInsert(effects))),
            \(sql: deliveriesInsert(offerClaimDeliveries(effects), once: "bought", holds: purchaseID))
            checked AS (
                SELECT redeem_assert(
                    (SELECT COUNT(*) FROM claimed) = 1 AND (SELECT COUNT(*) FROM counted) = 1 AND (SELECT COUNT(*) FROM claimant) = 1
                        AND COALESCE(\(sql: liveEndpointsSignature(appID: "\(appID)")), '') = \(effects.endpointIDs.joined(separator: ",")),
                    'the code, its quota, the claimant or the webhook endpoints changed') AS ok)
            \(sql: oneStatementAnswer(claimantID: effects.claimant.id, added: "bought"))
            """
    }

    /// The one-per-customer record of the claim.
    static func offerRecordInsert(_ effects: OfferClaimEffects) -> SQL {
        let record = effects.record
        return """
            INSERT INTO offer_redemptions (id, app_id, offer_id, customer_id, app_user_id, code_type, batch_id, custom_code_id,
                purchase_id, channel, created_at, email)
            VALUES (\(record.id), \(effects.appID), \(record.offerID), \(record.customerID), \(record.appUserID), \(record.codeType),
                \(record.batchID), \(record.customCodeID), \(record.purchaseID), \(record.channel.rawValue), \(effects.now), \(record.email))
            """
    }

    /// The events' deliveries, each event to every live endpoint read, in order.
    static func offerClaimDeliveries(_ effects: OfferClaimEffects) -> [[SQLValue]] {
        let queued = effects.events.map { described -> (WebhookEvent, transactionID: String?) in
            var event = WebhookEvent.offerRedemption(
                described.purchase, customer: described.customer, product: described.product, kind: described.kind,
                codeType: described.codeType, customCode: described.customCode, eventID: described.id, at: effects.now)
            // As `withAttributes` adds them: to an event naming its customer's original ID.
            if event.originalAppUserID != nil { event.addSubscriberAttributes(described.attributes) }
            return (event, nil)
        }
        return deliveryRows(queued, endpointIDs: effects.endpointIDs, now: effects.now)
    }
}
