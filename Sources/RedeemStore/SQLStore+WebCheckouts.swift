import Foundation
import RedeemCore

/// A checkout started by a web app through the JSON API.
public struct WebCheckout: Codable, Equatable, Sendable {
    public enum Status: String, Codable, Sendable {
        case started
        case inProgress = "in_progress"
        case succeeded, failed
    }

    public var id: String
    public var appID: String
    public var productID: String
    public var appUserID: String?
    public var email: String?
    public var isSandbox: Bool
    public var status: Status
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: String, appID: String, productID: String, appUserID: String?, email: String?, isSandbox: Bool,
        status: Status, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.appID = appID
        self.productID = productID
        self.appUserID = appUserID
        self.email = email
        self.isSandbox = isSandbox
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

extension SQLStore {
    public func createWebCheckout(_ checkout: WebCheckout) async throws {
        try await write { connection in
            try await connection.query(
                """
                INSERT INTO web_checkouts (id, app_id, product_id, app_user_id, email, is_sandbox, status, created_at, updated_at)
                VALUES (\(checkout.id), \(checkout.appID), \(checkout.productID), \(checkout.appUserID), \(checkout.email),
                    \(checkout.isSandbox), \(checkout.status.rawValue), \(checkout.createdAt), \(checkout.updatedAt))
                """)
        }
    }

    public func webCheckout(appID: String?, id: String) async throws -> WebCheckout? {
        try await read { connection in
            guard let row = try await connection.first("SELECT * FROM web_checkouts WHERE id = \(id)") else { return nil }
            let checkout = try WebCheckout(row: row)
            return appID == nil || checkout.appID == appID ? checkout : nil
        }
    }

    /// Moves a checkout forward: started → in progress → succeeded or failed; never back.
    public func advanceWebCheckout(id: String, to status: WebCheckout.Status, now: Date) async throws {
        let from: [String] =
            switch status {
            case .started: []
            case .inProgress: ["started"]
            case .succeeded, .failed: ["started", "in_progress"]
            }
        guard !from.isEmpty else { return }
        try await write { connection in
            var sql: SQL = "UPDATE web_checkouts SET status = \(status.rawValue), updated_at = \(now) WHERE id = \(id) AND status IN ("
            sql.text +=
                from.map { value -> String in
                    sql.binds.append(.text(value))
                    return "$\(sql.binds.count)"
                }.joined(separator: ", ") + ")"
            try await connection.query(sql)
        }
    }
}

extension WebCheckout {
    init(row: SQLRow) throws {
        self.init(
            id: try row.string("id"), appID: try row.string("app_id"), productID: try row.string("product_id"),
            appUserID: row.optionalString("app_user_id"), email: row.optionalString("email"), isSandbox: try row.bool("is_sandbox"),
            status: try row.enumeration("status"), createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at")
        )
    }
}
