import Foundation
import RedeemCore

/// What a cached Customer Info must still match to be served.
public struct CustomerInfoTag: Hashable, Sendable {
    /// SQLite: the database's change token.
    public var commit: UInt64?
    /// PostgreSQL: the customer the app user ID names, its version and its app's catalog version (migration 17).
    public var customerID: String?
    public var infoVersion: Int64 = 0
    public var catalogVersion: Int64 = 0

    public init(commit: UInt64) { self.commit = commit }

    public init(customerID: String, infoVersion: Int64, catalogVersion: Int64) {
        self.customerID = customerID
        self.infoVersion = infoVersion
        self.catalogVersion = catalogVersion
    }
}

/// What the database announces about those versions (migration 31), and how far the announcements are known to be read.
public enum CustomerVersionEvent: Sendable, Equatable {
    /// Listening (again): anything announced before may have been missed.
    case listening
    /// Not listening: nothing announced is known until `listening` again.
    case lost
    /// A customer's version committed; `gone` when it was deleted or one of its aliases moved away.
    case customer(String, version: Int64)
    /// An app's catalog version committed; `gone` when the app was deleted.
    case catalog(appID: String, version: Int64)
    /// Every announcement committed before `sentAt` has been reported.
    case caughtUp(sentAt: ContinuousClock.Instant)

    /// Greater than any version: an entry for a customer gone never matches again.
    public static let gone = Int64.max

    /// A payload of migration 31's triggers: `c <version> <id>`, `a <version> <id>`, or `gone` for the version.
    public static func parse(_ payload: String) -> CustomerVersionEvent? {
        let parts = payload.split(separator: " ", maxSplits: 2)
        guard parts.count == 3, let version = parts[1] == "gone" ? gone : Int64(parts[1]) else { return nil }
        switch parts[0] {
        case "c": return .customer(String(parts[2]), version: version)
        case "a": return .catalog(appID: String(parts[2]), version: version)
        default: return nil
        }
    }
}

extension SQLStore {
    /// What a cached Customer Info must still match to be served, read before the data it guards.
    ///
    /// On SQLite, the database's change token: any commit, by any connection or process, moves it. On PostgreSQL,
    /// where other instances commit unseen, the customer's and its app catalog's versions, which triggers move with
    /// every change (migration 17), read in one round trip: a redemption on one instance is seen by the next
    /// Customer Info on every other. Nil for a customer not seen yet (nothing is cached for it).
    public func customerInfoTag(appID: String, appUserID: AppUserID) async throws -> CustomerInfoTag? {
        if let token = try await database.changeToken() { return CustomerInfoTag(commit: token) }
        return try await read { connection in
            guard
                let row = try await connection.first(
                    """
                    SELECT c.id, c.info_version, ap.catalog_version FROM customer_aliases a
                    JOIN customers c ON c.id = a.customer_id JOIN apps ap ON ap.id = a.app_id
                    WHERE a.app_id = \(appID) AND a.app_user_id = \(appUserID.rawValue)
                    """)
            else { return nil }
            return CustomerInfoTag(
                customerID: try row.string("id"), infoVersion: try row.int("info_version"), catalogVersion: try row.int("catalog_version"))
        }
    }

    /// Reports the versions PostgreSQL announces (migration 31) until the calling task is cancelled, through the
    /// engine's listener (its own connection, reconnecting). Returns false at once on an engine without announcements
    /// (SQLite), whose tag read is a counter in memory anyway.
    public func watchCustomerVersions(_ sink: @escaping @Sendable (CustomerVersionEvent) -> Void) async -> Bool {
        guard let source = database as? any SQLNotificationSource else { return false }
        await source.listen(channel: "redeem_versions") { event in
            switch event {
            case .listening: sink(.listening)
            case .lost: sink(.lost)
            case .caughtUp(let sentAt): sink(.caughtUp(sentAt: sentAt))
            case .payload(let payload): if let parsed = CustomerVersionEvent.parse(payload) { sink(parsed) }
            }
        }
        return true
    }
}
