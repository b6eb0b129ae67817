import Foundation
import RedeemCore

/// Which audit entries a page of the log shows: an app's with the instance's (operators), narrowed to one actor, one
/// action or one object when given, older than a cursor (keyset paging: newest first, stable while entries are added).
public struct AuditQuery: Sendable {
    public var appID: String
    public var actor: String?
    public var action: String?
    /// An object's ID (`pur_…`, `key_…`, an operator's e-mail) or type (`purchase`, `app`).
    public var object: String?
    /// The last entry of the page before: only entries older than it.
    public var before: (at: Date, id: String)?

    public init(appID: String, actor: String? = nil, action: String? = nil, object: String? = nil, before: (at: Date, id: String)? = nil) {
        self.appID = appID
        self.actor = actor
        self.action = action
        self.object = object
        self.before = before
    }
}

extension SQLStore {
    /// One page of `query`'s entries, newest first, and whether older ones follow.
    public func auditLog(_ query: AuditQuery, limit: Int) async throws -> (entries: [AuditEntry], more: Bool) {
        var sql: SQL = "SELECT * FROM audit_log WHERE (app_id = \(query.appID) OR app_id IS NULL)"
        if let actor = query.actor { sql = "\(sql: sql) AND actor = \(actor)" }
        if let action = query.action { sql = "\(sql: sql) AND action = \(action)" }
        if let object = query.object { sql = "\(sql: sql) AND (object_id = \(object) OR object_type = \(object))" }
        if let (at, id) = query.before { sql = "\(sql: sql) AND (at < \(at) OR (at = \(at) AND id < \(id)))" }
        let statement: SQL = "\(sql: sql) ORDER BY at DESC, id DESC LIMIT \(limit + 1)"
        let entries = try await read { try await $0.query(statement).map(AuditEntry.init(row:)) }
        return (Array(entries.prefix(limit)), entries.count > limit)
    }

    /// The actors and actions in an app's log (with the instance's), for the log's filters: at most 200 of each.
    public func auditFacets(appID: String) async throws -> (actors: [String], actions: [String]) {
        try await read { connection in
            let actors = try await connection.query(
                "SELECT DISTINCT actor FROM audit_log WHERE app_id = \(appID) OR app_id IS NULL LIMIT 200")
            let actions = try await connection.query(
                "SELECT DISTINCT action FROM audit_log WHERE app_id = \(appID) OR app_id IS NULL LIMIT 200")
            // Sorted here: the engines collate apart.
            return (try actors.map { try $0.string("actor") }.sorted(), try actions.map { try $0.string("action") }.sorted())
        }
    }
}
