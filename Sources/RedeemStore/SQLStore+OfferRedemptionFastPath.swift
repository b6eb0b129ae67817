import Foundation
import RedeemCore
import RedeemWebhooks

/// An in-app offer-code redemption on PostgreSQL in two statements after the rate limit, for the common case: a code
/// that can be redeemed, a free offer, a claimant eligible for it and a stripe of the quarter's quota with room. The
/// app's webhook event is queued by the same statement.
///
/// Facts in, decision out, as `redeemOfferCode(_:resolution:on:)` does inside its transaction: one read gathers the code,
/// its offer and product, the claimant with its purchases and their products, and the quota's stripes; Core's
/// `OfferRules` refuse or plan; one statement of data-modifying CTEs applies the plan (claim, quota, claimant, purchase,
/// one-per-customer record, webhook deliveries) and answers with the claimant's rows. The code's use and the quota's
/// count go on stripes no other redemption holds (`SKIP LOCKED`), so concurrent redemptions do not queue on a stripe.
/// It asserts that the claim and the quota count both took and that the app's live endpoints are those read; otherwise
/// (a code taken meanwhile, every stripe with room full or held, a claimant or record created meanwhile, an endpoint
/// added or disabled) nothing of it stays and the transactional path decides, refusals included.
extension SQLStore {
    struct OfferFacts {
        let found: FoundOfferCode
        let claimant: Customer?
        let purchases: [Purchase]
        let products: [String: Product]
        let alreadyRedeemed: Bool
        /// The app's live webhook endpoints, ordered by ID; the claimant's aliases as events list them.
        let endpointIDs: [String]
        let claimantAliases: [String]
        let claimantAttributes: [String: SubscriberAttribute]
        let quota: Int
        /// Used count per existing stripe of the quarter's quota, and of a custom code's uses.
        let stripes: [Int: Int]
        let codeStripes: [Int: Int]
    }

    /// nil: take the transactional path.
    func fastOfferRedemption(_ request: OfferCodeRedemptionRequest) async throws -> OfferCodeRedemption? {
        // A web claim's history includes its address's, which only the transactional path reads.
        guard database.engine == .postgres, request.includeCustomerInfo, request.payment == nil, request.checkoutReference == nil,
            request.claimingAddress == nil
        else { return nil }
        let now = request.now
        guard let facts = try await read({ try await Self.offerFacts(request, on: $0) }),
            OfferRules.refusal(facts.found, paid: false, at: now) == nil,
            case .success(let plan) = OfferRules.decide(
                offer: facts.found.offer, product: facts.found.product, claimedBefore: facts.alreadyRedeemed, purchases: facts.purchases,
                products: facts.products, at: now,
                channel: request.channel),
            let quotaFirst = StripedCount.withRoom(limit: facts.quota, used: facts.stripes, first: Int.random(in: 0..<StripedCount.stripes)),
            let codeFirst = Self.codeFirst(facts)
        else { return nil }
        let claimantID = facts.claimant?.id ?? Identifier.make(prefix: "cus")
        var grant = PurchaseGrant(
            appID: request.appID, appUserID: request.claimant, productID: facts.found.product.id, store: request.store,
            isSandbox: request.isSandbox, purchaseDate: plan.purchaseDate, expiresDate: plan.expiresDate, periodType: plan.periodType,
            email: request.email)
        grant.offer = PurchaseOffer(facts.found.offer)
        let (purchase, insert) = try Self.purchaseInsert(grant, product: facts.found.product, customerID: claimantID, now: now)
        var deliveries: [[SQLValue]] = []
        if !facts.endpointIDs.isEmpty {
            // The claimant as `eventCustomer` reads it after the transactional path's insert (events use only its IDs).
            let user = request.claimant.rawValue
            let owner = Customer(
                id: claimantID, appID: request.appID, originalAppUserID: facts.claimant?.originalAppUserID ?? user,
                aliases: facts.claimant == nil ? [user] : facts.claimantAliases, firstSeen: now, lastSeen: now)
            var event = WebhookEvent.offerRedemption(
                purchase, customer: owner, product: facts.found.product, kind: plan.kind, codeType: facts.found.codeType,
                customCode: facts.found.customCode, eventID: Self.eventID(), at: now)
            event.addSubscriberAttributes(facts.claimantAttributes)
            deliveries = Self.deliveryRows([(event, nil)], endpointIDs: facts.endpointIDs, now: now)
        }
        let statement = Self.offerApply(
            request, found: facts.found, claimantID: claimantID, isNew: facts.claimant == nil, insert: insert, purchase: purchase,
            quotaFirst: quotaFirst, codeFirst: codeFirst, quota: facts.quota, deliveries: deliveries, endpoints: facts.endpointIDs)
        let rows: [SQLRow]
        do {
            rows = try await single { try await $0.query(statement) }
        } catch let error as StoreError where error.isConflict {
            return nil  // the claimant, or its record of this offer, was created meanwhile
        } catch let error as StoreError where error.isRaceLost {
            return nil  // the code was taken, or no stripe with room was free
        }
        guard rows.first?.optionalString("customer_ref") != nil, let snapshot = try Self.snapshot(appID: request.appID, rows: rows)
        else { return nil }
        var redemption = OfferCodeRedemption(purchase: purchase, offer: facts.found.offer, product: facts.found.product, kind: plan.kind)
        redemption.customerInfo = CustomerInfo(
            customer: snapshot.customer, purchases: snapshot.purchases, products: snapshot.products, requestDate: now)
        return redemption
    }

    /// Everything deciding needs, in one statement: each part is a row as JSON, named by `part`. nil when the typed
    /// text is no code of the app (the transactional path answers that).
    static func offerFacts(_ request: OfferCodeRedemptionRequest, on connection: any SQLConnection) async throws -> OfferFacts? {
        let hash = OfferCode.normalize(request.code).map(OfferCode.storedHash)
        let custom = OfferCode.normalizeCustom(request.code)
        guard hash != nil || custom != nil else { return nil }
        let appID = request.appID
        let rows = try await connection.query(
            """
            WITH one_time AS (
                SELECT c.redeemed_at, b.* FROM offer_codes c JOIN offer_code_batches b ON b.ref = c.batch_ref
                WHERE c.code_hash = \(hash) AND b.app_id = \(appID)),
            custom AS (
                SELECT \(sql: customCodeColumns) FROM offer_custom_codes c
                WHERE c.app_id = \(appID) AND c.code = \(custom) AND NOT EXISTS (SELECT 1 FROM one_time)),
            offer AS (
                SELECT * FROM offers WHERE app_id = \(appID)
                    AND id = COALESCE((SELECT offer_id FROM one_time), (SELECT offer_id FROM custom))),
            claimant AS (
                SELECT c.* FROM customer_aliases a JOIN customers c ON c.id = a.customer_id
                WHERE a.app_id = \(appID) AND a.app_user_id = \(request.claimant.rawValue)),
            owned AS (SELECT * FROM purchases WHERE customer_id = (SELECT id FROM claimant))
            SELECT 'one_time' AS part, row_to_json(one_time)::text AS row FROM one_time
            UNION ALL SELECT 'custom', row_to_json(custom)::text FROM custom
            UNION ALL SELECT 'offer', row_to_json(offer)::text FROM offer
            UNION ALL SELECT 'customer', row_to_json(claimant)::text FROM claimant
            UNION ALL SELECT 'purchase', row_to_json(owned)::text FROM owned
            UNION ALL SELECT 'aliases', json_agg(app_user_id ORDER BY created_at, app_user_id)::text FROM customer_aliases
                WHERE customer_id = (SELECT id FROM claimant) HAVING COUNT(*) > 0
            UNION ALL SELECT 'attributes', json_agg(json_build_array(key, value, updated_at))::text FROM subscriber_attributes
                WHERE customer_id = (SELECT id FROM claimant) HAVING COUNT(*) > 0
            UNION ALL SELECT 'product', row_to_json(x)::text FROM (
                SELECT p.*, pe.entitlement_id FROM products p
                LEFT JOIN product_entitlements pe ON pe.app_id = p.app_id AND pe.product_id = p.id
                WHERE p.app_id = \(appID) AND (p.id IN (SELECT product_id FROM owned) OR p.id = (SELECT product_id FROM offer))) x
            UNION ALL SELECT 'stripes', string_agg(stripe || ':' || used, ',') FROM offer_quota_stripes
                WHERE \(sql: quotaOf(appID: appID, quarter: OfferQuota.quarter(of: request.now))) HAVING COUNT(*) > 0
            UNION ALL SELECT 'code_stripes', string_agg(stripe || ':' || used, ',') FROM offer_custom_code_stripes
                WHERE code_id = (SELECT id FROM custom) HAVING COUNT(*) > 0
            UNION ALL SELECT 'facts', json_build_object(
                'already_redeemed', EXISTS (
                    SELECT 1 FROM offer_redemptions WHERE offer_id = (SELECT id FROM offer) AND customer_id = (SELECT id FROM claimant)),
                'endpoints', \(sql: liveEndpointsSignature(appID: "\(appID)")),
                'quota', (SELECT offer_code_quota_per_quarter FROM apps WHERE id = \(appID)))::text
            """)
        var parts: [String: [SQLRow]] = [:]
        var aliases: [String] = []
        var attributes: [String: SubscriberAttribute] = [:]
        var stripes: [String: [Int: Int]] = [:]
        for row in rows {
            let (part, json) = (try row.string("part"), try row.string("row"))
            if part == "aliases" {
                aliases = try JSONDecoder().decode([String].self, from: Data(json.utf8))
            } else if part == "attributes" {
                attributes = AttributeRow.dictionary(try JSONDecoder().decode([AttributeRow].self, from: Data(json.utf8)))
            } else if part.hasSuffix("stripes") {
                stripes[part] = try Self.stripes(json)
            } else {
                parts[part, default: []].append(try SQLRow(json: json))
            }
        }
        let kind: FoundOfferCode.Kind
        if let hash, let row = parts["one_time"]?.first {
            kind = .oneTime(hash: hash, batch: try OfferCodeBatch(row: row), used: row.optionalInt("redeemed_at") != nil)
        } else if let row = parts["custom"]?.first {
            kind = .custom(try CustomOfferCode(row: row))
        } else {
            return nil
        }
        let products = try Self.products(from: parts["product", default: []])
        guard let offerRow = parts["offer"]?.first, let facts = parts["facts"]?.first else { return nil }
        let offer = try Offer(row: offerRow)
        guard let product = products[offer.productID] else { return nil }
        return OfferFacts(
            found: FoundOfferCode(kind: kind, offer: offer, product: product),
            claimant: try parts["customer"]?.first.map { try Customer(row: $0) },
            purchases: try parts["purchase", default: []].map { try Purchase(row: $0) }, products: products,
            alreadyRedeemed: try facts.bool("already_redeemed"),
            endpointIDs: facts.optionalString("endpoints")?.split(separator: ",").map(String.init) ?? [], claimantAliases: aliases,
            claimantAttributes: attributes, quota: Int(facts.optionalInt("quota") ?? 0),
            stripes: stripes["stripes", default: [:]], codeStripes: stripes["code_stripes", default: [:]])
    }

    /// Stripes read as `stripe:used,…` text: a stripe's two numbers are not worth a JSON row each.
    static func stripes(_ text: String) throws -> [Int: Int] {
        var used: [Int: Int] = [:]
        for pair in text.split(separator: ",") {
            let numbers = pair.split(separator: ":")
            guard numbers.count == 2, let stripe = Int(numbers[0]), let count = Int(numbers[1]) else {
                throw StoreError.conflict("unreadable stripes: \(text)")
            }
            used[stripe] = count
        }
        return used
    }

    /// The stripe a custom code's use is tried on first (one with room when read); 0, unused, for a one-time code.
    static func codeFirst(_ facts: OfferFacts) -> Int? {
        guard case .custom(let code) = facts.found.kind else { return 0 }
        return StripedCount.withRoom(limit: code.maxRedemptions, used: facts.codeStripes, first: Int.random(in: 0..<StripedCount.stripes))
    }

    /// Products from rows of `p.*` and one `entitlement_id` each, in any order.
    static func products(from rows: [SQLRow]) throws -> [String: Product] {
        var products: [String: Product] = [:]
        for row in rows {
            let id = try row.string("id")
            if products[id] == nil { products[id] = try Product(row: row) }
            if let entitlement = row.optionalString("entitlement_id") { products[id]?.entitlements.append(entitlement) }
        }
        for id in products.keys { products[id]?.entitlements.sort() }
        return products
    }

    /// The claim as `claimStatement` makes it, but a custom code's use counted on a stripe no other redemption holds.
    static func fastClaim(_ found: FoundOfferCode, by claimant: AppUserID, now: Date, first: Int) -> SQL {
        guard case .custom(let code) = found.kind else { return claimStatement(found, by: claimant, now: now, stripe: 0) }
        return unheldStripeIncrement("offer_custom_code_stripes", owner: usesOf(code), limit: code.maxRedemptions, first: first)
    }

    /// Claim, quota, claimant (created, or its `last_seen` moved on), purchase and record, all or nothing, answering
    /// with the claimant's rows as `snapshot(appID:rows:)` reads them.
    static func offerApply(
        _ request: OfferCodeRedemptionRequest, found: FoundOfferCode, claimantID: String, isNew: Bool, insert: SQL, purchase: Purchase,
        quotaFirst: Int, codeFirst: Int, quota: Int, deliveries: [[SQLValue]], endpoints: [String]
    ) -> SQL {
        let (appID, now, user) = (request.appID, request.now, request.claimant.rawValue)
        let touchClaimant: SQL =
            isNew
            ? """
            claimant AS (
                INSERT INTO customers (id, app_id, original_app_user_id, first_seen, last_seen)
                VALUES (\(claimantID), \(appID), \(user), \(now), \(now)) RETURNING *),
            aliased AS (
                INSERT INTO customer_aliases (app_id, app_user_id, customer_id, created_at) VALUES (\(appID), \(user), \(claimantID), \(now))),
            """
            : """
            claimant AS (UPDATE customers SET last_seen = GREATEST(last_seen, \(now)) WHERE id = \(claimantID) RETURNING *),
            """
        let record = offerRecord(request, found: found, customerID: claimantID, purchaseID: purchase.id)
        return """
            WITH claimed AS (\(sql: fastClaim(found, by: request.claimant, now: now, first: codeFirst))),
            counted AS (\(sql: unheldStripeIncrement(
                "offer_quota_stripes", owner: quotaOf(appID: appID, quarter: OfferQuota.quarter(of: now)), limit: quota, first: quotaFirst))),
            \(sql: touchClaimant)
            bought AS (\(sql: insert) RETURNING *),
            recorded AS (\(sql: record)),
            \(sql: deliveriesInsert(deliveries, once: "bought", holds: purchase.id))
            checked AS (
                SELECT redeem_assert(
                    (SELECT COUNT(*) FROM claimed) = 1 AND (SELECT COUNT(*) FROM counted) = 1 AND (SELECT COUNT(*) FROM claimant) = 1
                        AND COALESCE(\(sql: liveEndpointsSignature(appID: "\(appID)")), '') = \(endpoints.joined(separator: ",")),
                    'the code, its quota, the claimant or the webhook endpoints changed') AS ok)
            \(sql: oneStatementAnswer(claimantID: claimantID, added: "bought"))
            """
    }
}

extension SQLRow {
    /// A row PostgreSQL gave as `row_to_json`: numbers as integers where they are whole, booleans as 0/1.
    init(json: String) throws {
        let object = try JSONDecoder().decode([String: JSONCell].self, from: Data(json.utf8))
        self.init(columns: SQLColumns(Array(object.keys)), values: Array(object.values.map(\.value)))
    }

    private struct JSONCell: Decodable {
        let value: SQLValue

        init(from decoder: any Decoder) throws {
            let cell = try decoder.singleValueContainer()
            // Text first: most cells are, and each type tried in vain costs a thrown error.
            if cell.decodeNil() {
                value = .null
            } else if let text = try? cell.decode(String.self) {
                value = .text(text)
            } else if let int = try? cell.decode(Int64.self) {
                value = .int(int)
            } else if let double = try? cell.decode(Double.self) {
                value = .double(double)
            } else {
                value = .int(try cell.decode(Bool.self) ? 1 : 0)
            }
        }
    }
}
