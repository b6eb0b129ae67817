import Foundation
import RedeemCore

/// Subscriber attributes (RevenueCat's `POST /v1/subscribers/{id}/attributes`): facts in, decision out. The store reads
/// the customer's attributes, `SubscriberAttributeRules.apply` decides, and the store writes what changed.
extension SQLStore {
    /// Applies `changes` for `appUserID` (created if new) and returns the keys refused; valid keys are saved either way.
    /// `fromBackend`: sent with the secret key. Only such a `$email` opens the portal and receives links, since the public
    /// key is in every copy of the app and could point someone else's purchases at any address.
    public func setAttributes(
        appID: String, appUserID: AppUserID, changes: [SubscriberAttributeRules.Change], fromBackend: Bool, now: Date
    ) async throws -> [SubscriberAttributeRules.Refusal] {
        try await write { connection in
            let customer = try await Self.resolveOrCreate(appID: appID, appUserID: appUserID, now: now, on: connection)
            // Two devices posting at once: the second reads what the first wrote (SQLite writes one at a time already).
            if connection.engine == .postgres { try await connection.query("SELECT id FROM customers WHERE id = \(customer.id) FOR UPDATE") }
            let existing = try await Self.attributes(customerID: customer.id, on: connection)
            let (attributes, refused) = SubscriberAttributeRules.apply(changes, to: existing)
            for key in Set(existing.keys).union(attributes.keys) where existing[key] != attributes[key] {
                if let attribute = attributes[key] {
                    try await connection.query(
                        """
                        INSERT INTO subscriber_attributes (customer_id, key, value, updated_at, from_backend)
                        VALUES (\(customer.id), \(key), \(attribute.value), \(attribute.updatedAt), \(fromBackend ? 1 : 0))
                        ON CONFLICT (customer_id, key) DO UPDATE
                        SET value = excluded.value, updated_at = excluded.updated_at, from_backend = excluded.from_backend
                        """)
                } else {
                    try await connection.query("DELETE FROM subscriber_attributes WHERE customer_id = \(customer.id) AND key = \(key)")
                }
            }
            return refused
        }
    }

    /// A customer's attributes by key.
    public func attributes(customerID: String) async throws -> [String: SubscriberAttribute] {
        try await read { try await Self.attributes(customerID: customerID, on: $0) }
    }

    static func attributes(customerID: String, on connection: any SQLConnection) async throws -> [String: SubscriberAttribute] {
        var attributes: [String: SubscriberAttribute] = [:]
        for row in try await connection.query("SELECT key, value, updated_at FROM subscriber_attributes WHERE customer_id = \(customerID)") {
            attributes[try row.string("key")] = SubscriberAttribute(value: try row.string("value"), updatedAt: try row.date("updated_at"))
        }
        return attributes
    }
}

/// One stored attribute with who set it, for the console: `fromBackend` when the app's secret key set it.
public struct SubscriberAttributeRecord: Hashable, Sendable {
    public let key: String
    public let value: String
    public let updatedAt: Date
    public let fromBackend: Bool
}

extension SQLStore {
    /// A customer's attributes, each with whether the secret key set it, by key (sorted here: the engines collate apart).
    public func attributeRecords(customerID: String) async throws -> [SubscriberAttributeRecord] {
        try await read { connection in
            try await connection.query(
                "SELECT key, value, updated_at, from_backend FROM subscriber_attributes WHERE customer_id = \(customerID)"
            ).map {
                SubscriberAttributeRecord(
                    key: try $0.string("key"), value: try $0.string("value"), updatedAt: try $0.date("updated_at"),
                    fromBackend: try $0.bool("from_backend"))
            }.sorted { $0.key < $1.key }
        }
    }
}

extension SQLStore {
    /// The attribute records of whoever `appUserID` is; none for an ID not seen yet.
    public func attributeRecords(appID: String, appUserID: AppUserID) async throws -> [SubscriberAttributeRecord] {
        guard let customer = try await findCustomer(appID: appID, appUserID: appUserID) else { return [] }
        return try await attributeRecords(customerID: customer.id)
    }

    /// The attributes of whoever `appUserID` is; none for an ID not seen yet.
    public func subscriberAttributes(appID: String, appUserID: AppUserID) async throws -> [String: SubscriberAttribute] {
        try await read { connection in
            guard let customer = try await Self.resolve(appID: appID, appUserID: appUserID, on: connection) else { return [:] }
            return try await Self.attributes(customerID: customer.id, on: connection)
        }
    }
}
