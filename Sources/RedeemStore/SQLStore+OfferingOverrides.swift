import Foundation
import RedeemCore

/// RevenueCat's offering override (REST API v1): the offering the app's backend chose as one customer's current one.
extension SQLStore {
    /// Makes `offeringID` the current offering of `appUserID` (created if new), or removes the override when nil.
    /// `StoreError.notFound` when the app has no such offering (and no customer is created). Audited when it changed
    /// something: a removal with no override in place, or the offering already chosen, writes nothing.
    public func setOfferingOverride(appID: String, appUserID: AppUserID, offeringID: String?, now: Date, audit: AuditEntry) async throws {
        try await write { connection in
            let customer = try await Self.resolveOrCreate(appID: appID, appUserID: appUserID, now: now, on: connection)
            if let offeringID {
                let known = try await connection.first("SELECT id FROM offerings WHERE app_id = \(appID) AND id = \(offeringID)")
                guard known != nil else { throw StoreError.notFound("offering '\(offeringID)'") }
                // Choosing again what is already chosen changes nothing: `chosen_at` stays when it was first chosen.
                let chosen = try await connection.query(
                    """
                    INSERT INTO offering_overrides (customer_id, app_id, offering_id, set_at) VALUES (\(customer.id), \(appID), \(offeringID), \(now))
                    ON CONFLICT (customer_id) DO UPDATE SET offering_id = excluded.offering_id, set_at = excluded.set_at
                    WHERE offering_overrides.offering_id <> excluded.offering_id
                    RETURNING customer_id
                    """)
                guard !chosen.isEmpty else { return }
            } else {
                // Removing what is not there changes nothing, so nothing is audited.
                let removed = try await connection.query("DELETE FROM offering_overrides WHERE customer_id = \(customer.id) RETURNING customer_id")
                guard !removed.isEmpty else { return }
            }
            var entry = audit
            entry.objectID = customer.id
            try await Self.insertAudit(entry, on: connection)
        }
    }

    /// How many customers each offering is the chosen current offering of, by offering ID (absent: none).
    public func offeringOverrideCounts(appID: String) async throws -> [String: Int] {
        try await read { connection in
            var counts: [String: Int] = [:]
            for row in try await connection.query(
                "SELECT offering_id, COUNT(*) AS n FROM offering_overrides WHERE app_id = \(appID) GROUP BY offering_id")
            {
                counts[try row.string("offering_id")] = Int(try row.int("n"))
            }
            return counts
        }
    }

    static func offeringOverride(customerID: String, on connection: any SQLConnection) async throws -> OfferingOverride? {
        try await connection.first("SELECT offering_id, set_at FROM offering_overrides WHERE customer_id = \(customerID)").map(
            OfferingOverride.init(row:))
    }

    /// The offering chosen for the customer `appUserID` names (any alias), and when; nil when none is or the ID is unknown.
    /// `StoreError.notFound` for an unknown app.
    public func offeringOverride(appID: String, appUserID: AppUserID) async throws -> OfferingOverride? {
        let row = try await read { connection in
            try await connection.first(
                """
                SELECT o.offering_id, o.set_at FROM apps ap
                LEFT JOIN customer_aliases a ON a.app_id = ap.id AND a.app_user_id = \(appUserID.rawValue)
                LEFT JOIN offering_overrides o ON o.customer_id = a.customer_id
                WHERE ap.id = \(appID)
                """)
        }
        guard let row else { throw StoreError.notFound("app '\(appID)'") }
        return row.optionalString("offering_id") == nil ? nil : try OfferingOverride(row: row)
    }

    /// What serving `appUserID` the app's offerings needs, in one read: the catalog's version, whether any customer of
    /// the app has an override, and this user's; nil for an unknown app.
    public func offeringsFacts(appID: String, appUserID: String) async throws -> OfferingsFacts? {
        try await read { connection in
            try await connection.first(
                """
                SELECT ap.catalog_version,
                    EXISTS (SELECT 1 FROM offering_overrides o WHERE o.app_id = ap.id) AS any_override,
                    (SELECT o.offering_id FROM customer_aliases a JOIN offering_overrides o ON o.customer_id = a.customer_id
                        WHERE a.app_id = ap.id AND a.app_user_id = \(appUserID)) AS override
                FROM apps ap WHERE ap.id = \(appID)
                """
            ).map {
                OfferingsFacts(
                    catalogVersion: try $0.int("catalog_version"), anyOverride: try $0.bool("any_override"),
                    override: $0.optionalString("override"))
            }
        }
    }
}

/// `SQLStore.offeringsFacts`.
public struct OfferingsFacts: Equatable, Sendable {
    public let catalogVersion: Int64
    /// Some customer of the app has an override: without one, no user's answer needs `override`.
    public let anyOverride: Bool
    public let override: String?

    public init(catalogVersion: Int64, anyOverride: Bool, override: String?) {
        self.catalogVersion = catalogVersion
        self.anyOverride = anyOverride
        self.override = override
    }
}

/// The offering the app's backend chose as one customer's current one, and when.
public struct OfferingOverride: Equatable, Sendable {
    public let offeringID: String
    public let setAt: Date

    public init(offeringID: String, setAt: Date) {
        self.offeringID = offeringID
        self.setAt = setAt
    }

    init(row: SQLRow) throws {
        self.init(offeringID: try row.string("offering_id"), setAt: try row.date("set_at"))
    }
}
