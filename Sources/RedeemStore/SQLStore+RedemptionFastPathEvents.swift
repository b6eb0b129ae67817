import Foundation
import RedeemCore
import RedeemWebhooks

/// The webhook events of a one-statement redemption, for an app with live endpoints: the same events the
/// transactional path queues (`emitRedemption`; an offer code's in `SQLStore+OfferRedemptionFastPath`), built here
/// from what the facts read gathered and queued by the applying statement, which also asserts that the app's live
/// endpoints are still the ones read.
extension SQLStore {
    /// What the events describe, read with the facts only when the app has a live endpoint. Alias lists come ordered
    /// as `aliases(customerID:)` orders them (by the database's collation); `mergedAliases` is the claimant's list after
    /// a merge, its own alias included when it is new.
    struct EventFacts: Decodable {
        let ownerOriginalID: String
        let ownerAliases: [String]?
        let claimantAliases: [String]?
        let mergedAliases: [String]?
        let entitlements: [String]?
        let claimantAttributes: [AttributeRow]?
        let ownerAttributes: [AttributeRow]?

        enum CodingKeys: String, CodingKey {
            case ownerOriginalID = "owner_original"
            case ownerAliases = "owner_aliases"
            case claimantAliases = "claimant_aliases"
            case mergedAliases = "merged_aliases"
            case entitlements
            case claimantAttributes = "claimant_attributes"
            case ownerAttributes = "owner_attributes"
        }
    }

    /// `[key, value, updated_at]`, as `json_build_array` writes a subscriber attribute.
    struct AttributeRow: Decodable {
        let key: String
        let attribute: SubscriberAttribute

        init(from decoder: any Decoder) throws {
            var row = try decoder.unkeyedContainer()
            key = try row.decode(String.self)
            let value = try row.decode(String.self)
            attribute = SubscriberAttribute(value: value, updatedAt: Date(milliseconds: try row.decode(Int64.self)))
        }

        static func dictionary(_ rows: [AttributeRow]?) -> [String: SubscriberAttribute] {
            Dictionary((rows ?? []).map { ($0.key, $0.attribute) }, uniquingKeysWith: { first, _ in first })
        }
    }

    struct FastEvents {
        /// The app's live endpoints, ordered by ID (as `liveEndpointsSignature` joins them).
        let endpointIDs: [String]
        let facts: EventFacts
        let product: Product
    }

    /// The facts read's columns `live_endpoints`, `event_facts` and `event_product`, beside a purchase `p`, the
    /// claimant's customer `cc` and `e` (`endpointsJoin`); the event columns are computed only when there are endpoints.
    static func eventColumns(claimant: AppUserID, now: Date) -> SQL {
        """
        e.ids AS live_endpoints,
        CASE WHEN e.ids IS NOT NULL THEN json_build_object(
            'owner_original', (SELECT original_app_user_id FROM customers WHERE id = p.customer_id),
            'owner_aliases', (SELECT json_agg(app_user_id ORDER BY created_at, app_user_id) FROM customer_aliases WHERE customer_id = p.customer_id),
            'claimant_aliases', (SELECT json_agg(app_user_id ORDER BY created_at, app_user_id) FROM customer_aliases WHERE customer_id = cc.id),
            'merged_aliases', (SELECT json_agg(id ORDER BY at, id) FROM (
                SELECT app_user_id AS id, created_at AS at FROM customer_aliases WHERE customer_id IN (p.customer_id, cc.id)
                UNION ALL SELECT \(claimant.rawValue)::text, \(now)::bigint WHERE cc.id IS NULL) merged),
            'entitlements', (SELECT json_agg(entitlement_id ORDER BY entitlement_id) FROM product_entitlements pe
                WHERE pe.app_id = p.app_id AND pe.product_id = p.product_id),
            'claimant_attributes', (SELECT json_agg(json_build_array(key, value, updated_at)) FROM subscriber_attributes
                WHERE customer_id = cc.id),
            'owner_attributes', (SELECT json_agg(json_build_array(key, value, updated_at)) FROM subscriber_attributes
                WHERE customer_id = p.customer_id))::text END AS event_facts,
        CASE WHEN e.ids IS NOT NULL THEN (SELECT row_to_json(pr)::text FROM products pr WHERE pr.app_id = p.app_id AND pr.id = p.product_id)
            END AS event_product
        """
    }

    /// `e.ids`, the app's live endpoints, read once per statement (the subquery depends on no row of the read).
    /// `OFFSET 0` keeps it so: without it PostgreSQL pulled the subquery up and copied it into each of the three places
    /// that read `e.ids`, three scans where one does.
    static func endpointsJoin(appID: String) -> SQL {
        "CROSS JOIN (SELECT \(sql: liveEndpointsSignature(appID: "\(appID)")) AS ids OFFSET 0) e"
    }

    /// The app's live endpoints as the facts read and the applying statement's assertion both see them.
    static func liveEndpointsSignature(appID: SQL) -> SQL {
        "(SELECT string_agg(id, ',' ORDER BY id) FROM webhook_endpoints WHERE app_id = \(sql: appID) AND disabled_at IS NULL)"
    }

    static func fastEvents(_ row: SQLRow) throws -> FastEvents? {
        guard let endpoints = row.optionalString("live_endpoints") else { return nil }
        guard let facts = row.optionalString("event_facts"), let product = row.optionalString("event_product") else {
            throw StoreError.conflict("a redemption's event facts are missing")
        }
        let eventFacts = try JSONDecoder().decode(EventFacts.self, from: Data(facts.utf8))
        var eventProduct = try Product(row: SQLRow(json: product))
        eventProduct.entitlements = eventFacts.entitlements ?? []
        return FastEvents(endpointIDs: endpoints.split(separator: ",").map(String.init), facts: eventFacts, product: eventProduct)
    }

    /// The deliveries of the effects' events (`redemptionEvents`), each to every live endpoint, described from the facts
    /// read as the transactional path describes them after its write: the survivor with its IDs and attributes after
    /// the merge (`SubscriberAttribute.merged`), the previous owner for a transfer.
    static func fastDeliveries(_ events: FastEvents, effects: RedemptionEffects, moved: Purchase, known: Customer?) -> [[SQLValue]] {
        let facts = events.facts
        let survivorIsOwner = effects.survivorID == effects.ownerID
        let owner = AttributeRow.dictionary(facts.ownerAttributes)
        let claimant = AttributeRow.dictionary(facts.claimantAttributes)
        let (aliases, attributes): ([String], [String: SubscriberAttribute]) =
            switch effects.ownership {
            case .merge:
                (
                    facts.mergedAliases ?? [],
                    survivorIsOwner ? SubscriberAttribute.merged(claimant, into: owner) : SubscriberAttribute.merged(owner, into: claimant)
                )
            case .unchanged where effects.claimantCustomer == .joinOwner: (facts.mergedAliases ?? [], owner)
            case .unchanged, .transfer: (known == nil ? [effects.claimant.rawValue] : facts.claimantAliases ?? [], claimant)
            }
        // The customers as events describe them (IDs and aliases; their sightings are not in any event).
        let destination = Customer(
            id: effects.survivorID, appID: moved.appID,
            originalAppUserID: survivorIsOwner ? facts.ownerOriginalID : known?.originalAppUserID ?? effects.claimant.rawValue,
            aliases: aliases, firstSeen: effects.at, lastSeen: effects.at)
        let source = Customer(
            id: effects.ownerID, appID: moved.appID, originalAppUserID: facts.ownerOriginalID, aliases: facts.ownerAliases ?? [],
            firstSeen: effects.at, lastSeen: effects.at)
        let queued = redemptionEvents(effects, purchase: moved, owner: destination, source: source, product: events.product).map {
            event, transactionID in
            var event = event
            // As `withAttributes` adds them: to each event naming the destination's original ID.
            if event.originalAppUserID != nil { event.addSubscriberAttributes(attributes) }
            return (event, transactionID)
        }
        return deliveryRows(queued, endpointIDs: events.endpointIDs, now: effects.at)
    }

    /// A CTE queuing `deliveries` once the CTE named `cte` holds the purchase; none when there are none.
    static func deliveriesInsert(_ deliveries: [[SQLValue]], once cte: String, holds purchaseID: String) -> SQL {
        guard !deliveries.isEmpty else { return "" }
        return """
            queued AS (
                INSERT INTO webhook_deliveries \(sql: deliveryColumns)
                SELECT * FROM (\(sql: .values(deliveries))) AS v WHERE EXISTS (SELECT 1 FROM \(unsafeRaw: cte) WHERE id = \(purchaseID))),
            """
    }
}
