import Foundation
import RedeemCore
import RedeemWebhooks

/// An offer claim on PostgreSQL in one read and one statement after the rate limit, whenever the facts read decide
/// it: in the app or on the web page, for a known, new or anonymous claimant, free or with its payment known, and any
/// refusal (answered from the read, writing nothing, as the transactional path's rollback leaves nothing).
///
/// Facts in, decision out, as `redeemOfferCode(_:on:)` does inside its transaction: one read gathers the code, its offer
/// and product, the claimant with its purchases (on the web also the buyer's address's) and their products, the quota's
/// and a custom code's stripes and the live endpoints; Core decides (`OfferRules.decideClaim`) and describes the writes
/// (`OfferClaimEffects`), which `offerClaimStatement` applies in one statement, answering with the claimant's rows. The
/// code's use and the quota's count go on stripes no other redemption holds (`SKIP LOCKED`), so concurrent redemptions
/// do not queue on a stripe. What it asserts failing (a code taken meanwhile, every stripe with room full or held, a
/// claimant or record created meanwhile, an endpoint added or disabled), or a quarter whose quota stripes are not laid
/// out yet, leaves nothing and the transactional path decides.
extension SQLStore {
    /// nil: take the transactional path.
    func fastOfferRedemption(_ request: OfferCodeRedemptionRequest) async throws -> Result<OfferCodeRedemption, OfferRedemptionFailure>? {
        guard database.engine == .postgres else { return nil }
        guard OfferCode.normalize(request.code) != nil || OfferCode.normalizeCustom(request.code) != nil else { return .failure(.invalid) }
        guard let facts = try await read({ try await Self.offerFacts(request, on: $0) }) else { return .failure(.invalid) }
        let effects: OfferClaimEffects
        switch try Self.offerClaimEffects(request, facts: facts) {
        case nil: return nil
        case .failure(let failure)?: return .failure(failure)
        case .success(let value)?: effects = value
        }
        let statement = try Self.offerClaimStatement(effects)
        let rows: [SQLRow]
        do {
            rows = try await single { try await $0.query(statement) }
        } catch let error as StoreError where error.isConflict {
            return nil  // the claimant, or its record of this offer, was created meanwhile
        } catch let error as StoreError where error.isRaceLost {
            return nil  // the code was taken, or no stripe with room was free
        }
        guard rows.first?.optionalString("customer_ref") != nil else { return nil }
        var redemption = OfferCodeRedemption(purchase: effects.purchase, offer: facts.found.offer, product: facts.found.product, kind: effects.kind)
        if request.includeCustomerInfo {
            guard let snapshot = try Self.snapshot(appID: request.appID, rows: rows) else { return nil }
            redemption.customerInfo = CustomerInfo(
                customer: snapshot.customer, purchases: snapshot.purchases, products: snapshot.products, requestDate: request.now)
        }
        return .success(redemption)
    }

    /// Everything deciding needs, in one statement: each part is a row as JSON, named by `part`. nil when the typed
    /// text is no code of the app.
    static func offerFacts(_ request: OfferCodeRedemptionRequest, on connection: any SQLConnection) async throws -> OfferClaimFacts? {
        let hash = OfferCode.normalize(request.code).map(OfferCode.storedHash)
        let custom = OfferCode.normalizeCustom(request.code)
        guard hash != nil || custom != nil else { return nil }
        let (appID, address) = (request.appID, request.claimingAddress)
        let rows = try await connection.query(
            """
            WITH one_time AS (
                SELECT c.redeemed_at, b.* FROM offer_codes c JOIN offer_code_batches b ON b.ref = c.batch_ref
                WHERE c.code_hash = \(hash) AND b.app_id = \(appID)),
            custom AS (
                -- The code's stripes read once, for its count (as `customCodeColumns` sums them) and for Core's choice.
                SELECT c.*, s.redemption_count, s.code_stripes FROM offer_custom_codes c, LATERAL (
                    SELECT CAST(COALESCE(SUM(used), 0) AS BIGINT) AS redemption_count, string_agg(stripe || ':' || used, ',') AS code_stripes
                    FROM offer_custom_code_stripes WHERE code_id = c.id) s
                WHERE c.app_id = \(appID) AND c.code = \(custom) AND NOT EXISTS (SELECT 1 FROM one_time)),
            offer AS (
                SELECT * FROM offers WHERE app_id = \(appID)
                    AND id = COALESCE((SELECT offer_id FROM one_time), (SELECT offer_id FROM custom))),
            claimant AS (
                SELECT c.* FROM customer_aliases a JOIN customers c ON c.id = a.customer_id
                WHERE a.app_id = \(appID) AND a.app_user_id = \(request.claimant.rawValue)),
            owned AS (
                SELECT * FROM purchases WHERE customer_id = (SELECT id FROM claimant)
                    OR (app_id = \(appID) AND LOWER(email) = \(address)))
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
            UNION ALL SELECT 'facts', json_build_object(
                -- Two probes, each an index's (offer and customer; offer and address): one OR'd filter scanned every
                -- claim of the offer, which grew with each redemption.
                'already_redeemed', EXISTS (
                    SELECT 1 FROM offer_redemptions WHERE offer_id = (SELECT id FROM offer) AND customer_id = (SELECT id FROM claimant))
                    OR EXISTS (SELECT 1 FROM offer_redemptions WHERE offer_id = (SELECT id FROM offer) AND email = \(address)),
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
            if let text = row.optionalString("code_stripes") { stripes["code_stripes"] = try Self.stripes(text) }
        } else {
            return nil
        }
        let products = try Self.products(from: parts["product", default: []])
        guard let offerRow = parts["offer"]?.first, let facts = parts["facts"]?.first else { return nil }
        let offer = try Offer(row: offerRow)
        guard let product = products[offer.productID] else { return nil }
        var claimant = try parts["customer"]?.first.map { try Customer(row: $0) }
        claimant?.aliases = aliases
        return OfferClaimFacts(
            found: FoundOfferCode(kind: kind, offer: offer, product: product), claimant: claimant, claimantAttributes: attributes,
            purchases: try parts["purchase", default: []].map { try Purchase(row: $0) }, products: products,
            claimedBefore: try facts.bool("already_redeemed"),
            endpointIDs: facts.optionalString("endpoints")?.split(separator: ",").map(String.init) ?? [],
            quota: Int(facts.optionalInt("quota") ?? 0), quotaStripes: stripes["stripes", default: [:]],
            codeStripes: stripes["code_stripes", default: [:]])
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
