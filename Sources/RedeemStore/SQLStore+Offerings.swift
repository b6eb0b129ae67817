import Foundation
import RedeemCore

/// Offerings: packages pointing at products, one offering current per app (a unique index keeps it one).
extension SQLStore {
    /// Creates an offering with its packages; when it is current, the app's other offering stops being so.
    public func createOffering(_ offering: Offering, audit: AuditEntry? = nil) async throws {
        try await write(audit: audit) { connection in
            try await Self.requireApp(offering.appID, on: connection)
            if offering.isCurrent { try await Self.clearCurrent(appID: offering.appID, on: connection) }
            do {
                try await connection.query(
                    """
                    INSERT INTO offerings (app_id, id, description, metadata, is_current, created_at)
                    VALUES (\(offering.appID), \(offering.id), \(offering.description), \(offering.metadataJSON), \(offering.isCurrent),
                        \(offering.createdAt))
                    """)
            } catch let error as StoreError where error.isConflict {
                throw StoreError.conflict("offering '\(offering.id)' already exists")
            }
            try await Self.insertPackages(offering, on: connection)
        }
    }

    /// Replaces an offering's description, metadata, packages and whether it is current.
    public func updateOffering(_ offering: Offering, audit: AuditEntry? = nil) async throws {
        try await write(audit: audit) { connection in
            if offering.isCurrent { try await Self.clearCurrent(appID: offering.appID, on: connection) }
            let rows = try await connection.query(
                """
                UPDATE offerings SET description = \(offering.description), metadata = \(offering.metadataJSON), is_current = \(offering.isCurrent)
                WHERE app_id = \(offering.appID) AND id = \(offering.id) RETURNING id
                """)
            guard !rows.isEmpty else { throw StoreError.notFound("offering '\(offering.id)'") }
            try await connection.query("DELETE FROM offering_packages WHERE app_id = \(offering.appID) AND offering_id = \(offering.id)")
            try await Self.insertPackages(offering, on: connection)
        }
    }

    public func deleteOffering(appID: String, id: String, audit: AuditEntry? = nil) async throws {
        try await write(audit: audit) { connection in
            try await connection.query("DELETE FROM offering_packages WHERE app_id = \(appID) AND offering_id = \(id)")
            let rows = try await connection.query("DELETE FROM offerings WHERE app_id = \(appID) AND id = \(id) RETURNING id")
            guard !rows.isEmpty else { throw StoreError.notFound("offering '\(id)'") }
        }
    }

    /// The app's offerings with their packages in order, the current one first.
    public func offerings(appID: String) async throws -> [Offering] {
        try await read { try await Self.offerings(appID: appID, on: $0) }
    }

    static func offerings(appID: String, on connection: any SQLConnection) async throws -> [Offering] {
        let rows = try await connection.query(
            """
            SELECT o.*, p.id AS package_id, p.product_id AS package_product_id FROM offerings o
            LEFT JOIN offering_packages p ON p.app_id = o.app_id AND p.offering_id = o.id
            WHERE o.app_id = \(appID) ORDER BY o.is_current DESC, o.id, p.position
            """)
        var offerings: [Offering] = []
        for row in rows {
            let id = try row.string("id")
            if offerings.last?.id != id {
                offerings.append(
                    Offering(
                        appID: appID, id: id, description: try row.string("description"), metadataJSON: try row.string("metadata"),
                        isCurrent: try row.bool("is_current"), packages: [], createdAt: try row.date("created_at")))
            }
            if let package = row.optionalString("package_id"), let product = row.optionalString("package_product_id") {
                offerings[offerings.count - 1].packages.append(Offering.Package(id: package, productID: product))
            }
        }
        return offerings
    }

    static func clearCurrent(appID: String, on connection: any SQLConnection) async throws {
        try await connection.query("UPDATE offerings SET is_current = \(false) WHERE app_id = \(appID) AND is_current = \(true)")
    }

    static func insertPackages(_ offering: Offering, on connection: any SQLConnection) async throws {
        guard !offering.packages.isEmpty else { return }
        let rows = offering.packages.enumerated().map { position, package in
            [SQLValue.text(offering.appID), .text(offering.id), .text(package.id), .text(package.productID), .int(Int64(position))]
        }
        try await connection.query("INSERT INTO offering_packages (app_id, offering_id, id, product_id, position) \(sql: .values(rows))")
    }
}

extension SQLStore {
    /// The app's catalog version (products, their entitlements, offerings): caches of what the catalog makes are valid
    /// while it is unchanged. Triggers move it on both engines (migrations 17 and 23); nil for an unknown app.
    public func catalogVersion(appID: String) async throws -> Int64? {
        try await read { try await $0.first("SELECT catalog_version FROM apps WHERE id = \(appID)")?.optionalInt("catalog_version") }
    }

    /// The app's offerings and every product (promotional grants' products left out), read together.
    public func catalog(appID: String) async throws -> (offerings: [Offering], products: [Product]) {
        try await read { connection in
            (try await Self.offerings(appID: appID, on: connection), try await Self.products(appID: appID, ids: nil, on: connection))
        }
    }
}
