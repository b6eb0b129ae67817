import Foundation
import RedeemCore
import RedeemWebhooks

extension SQLStore {
    public func createWebhookEndpoint(_ endpoint: WebhookEndpoint, audit: AuditEntry? = nil) async throws {
        try await write(audit: audit) { connection in
            try await Self.requireApp(endpoint.appID, on: connection)
            try await connection.query(
                """
                INSERT INTO webhook_endpoints (id, app_id, url, authorization_header, signing_secret, created_at)
                VALUES (\(endpoint.id), \(endpoint.appID), \(endpoint.url), \(endpoint.authorization), \(endpoint.signingSecret), \(endpoint.createdAt))
                """)
        }
    }

    public func webhookEndpoints(appID: String) async throws -> [WebhookEndpoint] {
        try await read { connection in
            try await connection.query("SELECT * FROM webhook_endpoints WHERE app_id = \(appID) ORDER BY created_at, id").map(
                WebhookEndpoint.init(row:))
        }
    }

    public func disableWebhookEndpoint(id: String, appID: String, at date: Date, audit: AuditEntry? = nil) async throws {
        try await write(audit: audit) { connection in
            let rows = try await connection.query(
                """
                UPDATE webhook_endpoints SET disabled_at = COALESCE(disabled_at, \(date)) WHERE id = \(id) AND app_id = \(appID) RETURNING id
                """)
            guard !rows.isEmpty else { throw StoreError.notFound("webhook endpoint '\(id)'") }
        }
    }

    /// Queues `event` for every live endpoint of its app, in the caller's transaction: an event exists exactly when
    /// the change it reports was committed.
    /// Whether the app has an endpoint to queue events for; callers ask before reading what an event body needs.
    /// (The redemption asks inside its purchase read, as `EXISTS` with the same condition.)
    static func hasLiveEndpoint(appID: String, on connection: any SQLConnection) async throws -> Bool {
        try await connection.first("SELECT id FROM webhook_endpoints WHERE app_id = \(appID) AND disabled_at IS NULL LIMIT 1") != nil
    }

    /// `transactionID` files the deliveries under a purchase when the event itself names none (`TRANSFER`).
    static func emit(_ event: WebhookEvent, transactionID: String? = nil, on connection: any SQLConnection, now: Date) async throws {
        try await emit([(event, transactionID)], on: connection, now: now)
    }

    /// Events of one app, in order, to each of its live endpoints: one read of the endpoints, one insert.
    static func emit(_ queued: [(WebhookEvent, transactionID: String?)], on connection: any SQLConnection, now: Date) async throws {
        guard let appID = queued.first?.0.appID else { return }
        let endpoints = try await connection.query("SELECT id FROM webhook_endpoints WHERE app_id = \(appID) AND disabled_at IS NULL")
        guard !endpoints.isEmpty else { return }
        let queued = try await withAttributes(queued, appID: appID, on: connection)
        let rows = deliveryRows(queued, endpointIDs: try endpoints.map { try $0.string("id") }, now: now)
        guard !rows.isEmpty else { return }
        try await connection.query("INSERT INTO webhook_deliveries \(sql: deliveryColumns) \(sql: .values(rows))")
    }

    /// The events with their customers' subscriber attributes, read in one query by the customers' original IDs.
    static func withAttributes(
        _ queued: [(WebhookEvent, transactionID: String?)], appID: String, on connection: any SQLConnection
    ) async throws -> [(WebhookEvent, transactionID: String?)] {
        let ids = Set(queued.compactMap { $0.0.originalAppUserID })
        guard !ids.isEmpty else { return queued }
        var byID: [String: [String: SubscriberAttribute]] = [:]
        for row in try await connection.query(
            """
            SELECT a.app_user_id, sa.key, sa.value, sa.updated_at FROM customer_aliases a
            JOIN subscriber_attributes sa ON sa.customer_id = a.customer_id
            WHERE a.app_id = \(appID) AND a.app_user_id IN \(sql: list(ids.sorted()))
            """)
        {
            byID[try row.string("app_user_id"), default: [:]][try row.string("key")] = SubscriberAttribute(
                value: try row.string("value"), updatedAt: try row.date("updated_at"))
        }
        guard !byID.isEmpty else { return queued }
        return queued.map { event, transactionID in
            var event = event
            if let attributes = event.originalAppUserID.flatMap({ byID[$0] }) { event.addSubscriberAttributes(attributes) }
            return (event, transactionID)
        }
    }

    /// The columns of a queued delivery, in the order `deliveryRows` gives their values.
    static let deliveryColumns: SQL =
        "(id, endpoint_id, app_id, event_id, event_type, body, transaction_id, created_at, next_attempt_at)"

    /// One delivery row per event and endpoint, in `deliveryColumns`' order.
    static func deliveryRows(_ queued: [(WebhookEvent, transactionID: String?)], endpointIDs: [String], now: Date) -> [[SQLValue]] {
        queued.flatMap { event, transactionID in
            let body = String(decoding: WebhookPayload.body(event), as: UTF8.self)
            return endpointIDs.map { endpointID -> [SQLValue] in
                [
                    .text(Identifier.make(prefix: "dlv")), .text(endpointID), .text(event.appID), .text(event.id), .text(event.type.rawValue),
                    .text(body), (event.transactionID ?? transactionID).map(SQLValue.text) ?? .null, now.sqlValue, now.sqlValue,
                ]
            }
        }
    }

    /// Queues an event outside any other change (e.g. a test event).
    public func emit(_ event: WebhookEvent, now: Date, audit: AuditEntry? = nil) async throws {
        try await write(audit: audit) { try await Self.emit(event, on: $0, now: now) }
    }

    /// A customer with all its IDs, as events describe it.
    static func eventCustomer(id: String, on connection: any SQLConnection) async throws -> Customer {
        guard var customer = try await connection.first("SELECT * FROM customers WHERE id = \(id)").map(Customer.init(row:)) else {
            throw StoreError.notFound("customer '\(id)'")
        }
        customer.aliases = try await aliases(customerID: id, on: connection)
        return customer
    }

    /// A new event ID: stable from here on, whatever the retries.
    static func eventID() -> String { "evt_" + SecretToken.generate(byteCount: 12) }

    /// Leases up to `limit` due deliveries with their endpoint's address and secrets, at most `perEndpoint` in flight
    /// per endpoint counting those other workers (or instances) hold, so one slow endpoint never fills every slot.
    /// On PostgreSQL rows another instance is claiming are skipped, not waited for.
    public func claimDueDeliveries(now: Date, lease: TimeInterval, limit: Int, perEndpoint: Int) async throws -> [(WebhookDelivery, WebhookEndpoint)]
    {
        let until = now.addingTimeInterval(lease)
        return try await write { connection in
            let skipLocked = connection.engine == .postgres ? "FOR UPDATE SKIP LOCKED" : ""
            // The 1,000 oldest due rows are ranked per endpoint; a backlog further back waits its turn.
            let claimed = try await connection.query(
                """
                UPDATE webhook_deliveries SET locked_until = \(until)
                WHERE id IN (
                    SELECT id FROM webhook_deliveries WHERE id IN (
                        SELECT ranked.id FROM (
                            SELECT id, endpoint_id, next_attempt_at,
                                ROW_NUMBER() OVER (PARTITION BY endpoint_id ORDER BY next_attempt_at, id) AS place
                            FROM (
                                SELECT id, endpoint_id, next_attempt_at FROM webhook_deliveries
                                WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= \(now)
                                    AND (locked_until IS NULL OR locked_until <= \(now))
                                ORDER BY next_attempt_at LIMIT 1000
                            ) due
                        ) ranked
                        LEFT JOIN (
                            SELECT endpoint_id, COUNT(*) AS held FROM webhook_deliveries
                            WHERE delivered_at IS NULL AND failed_at IS NULL AND locked_until > \(now)
                            GROUP BY endpoint_id
                        ) busy ON busy.endpoint_id = ranked.endpoint_id
                        WHERE ranked.place + COALESCE(busy.held, 0) <= \(perEndpoint)
                        ORDER BY ranked.next_attempt_at LIMIT \(limit)
                    ) AND delivered_at IS NULL AND failed_at IS NULL AND (locked_until IS NULL OR locked_until <= \(now))
                    \(unsafeRaw: skipLocked)
                )
                RETURNING *
                """
            ).map(WebhookDelivery.init(row:))
            guard !claimed.isEmpty else { return [] }
            var endpoints: [String: WebhookEndpoint] = [:]
            for endpointID in Set(claimed.map(\.endpointID)) {
                if let row = try await connection.first("SELECT * FROM webhook_endpoints WHERE id = \(endpointID)") {
                    endpoints[endpointID] = try WebhookEndpoint(row: row)
                }
            }
            return claimed.sorted { $0.createdAt < $1.createdAt }.compactMap { delivery in
                endpoints[delivery.endpointID].map { (delivery, $0) }
            }
        }
    }

    /// Logs an attempt; `delivered`, or retried at `retryAt`, or given up on when that is nil.
    public func recordDeliveryAttempt(deliveryID: String, attempt: WebhookAttempt, delivered: Bool, retryAt: Date?) async throws {
        try await write { connection in
            try await connection.query(
                """
                INSERT INTO webhook_attempts (id, delivery_id, attempted_at, status_code, error, duration_ms)
                VALUES (\(Identifier.make(prefix: "wat")), \(deliveryID), \(attempt.attemptedAt), \(attempt.statusCode), \(attempt.error), \(attempt.durationMs))
                """)
            if delivered {
                try await connection.query(
                    """
                    UPDATE webhook_deliveries SET attempts = attempts + 1, delivered_at = \(attempt.attemptedAt), locked_until = NULL WHERE id = \(deliveryID)
                    """)
            } else if let retryAt {
                try await connection.query(
                    """
                    UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = \(retryAt), locked_until = NULL WHERE id = \(deliveryID)
                    """)
            } else {
                try await connection.query(
                    """
                    UPDATE webhook_deliveries SET attempts = attempts + 1, failed_at = \(attempt.attemptedAt), locked_until = NULL WHERE id = \(deliveryID)
                    """)
            }
        }
    }

    public func webhookDeliveries(appID: String, limit: Int = 100) async throws -> [WebhookDelivery] {
        try await read { connection in
            try await connection.query(
                """
                SELECT * FROM webhook_deliveries WHERE app_id = \(appID) ORDER BY created_at DESC, id LIMIT \(limit)
                """
            ).map(WebhookDelivery.init(row:))
        }
    }

    public func webhookAttempts(deliveryID: String) async throws -> [WebhookAttempt] {
        try await read { connection in
            try await connection.query("SELECT * FROM webhook_attempts WHERE delivery_id = \(deliveryID) ORDER BY attempted_at, id").map { row in
                WebhookAttempt(
                    attemptedAt: try row.date("attempted_at"), statusCode: row.optionalInt("status_code").map(Int.init),
                    error: row.optionalString("error"), durationMs: try row.int("duration_ms")
                )
            }
        }
    }

    /// Sends a delivery again now, whatever its state (the same event ID and body).
    public func replayDelivery(id: String, appID: String, now: Date, audit: AuditEntry? = nil) async throws {
        try await write(audit: audit) { connection in
            let rows = try await connection.query(
                """
                UPDATE webhook_deliveries SET next_attempt_at = \(now), failed_at = NULL, delivered_at = NULL, locked_until = NULL
                WHERE id = \(id) AND app_id = \(appID) RETURNING id
                """)
            guard !rows.isEmpty else { throw StoreError.notFound("webhook delivery '\(id)'") }
        }
    }
}

extension WebhookEndpoint {
    init(row: SQLRow) throws {
        self.init(
            id: try row.string("id"), appID: try row.string("app_id"), url: try row.string("url"),
            authorization: row.optionalString("authorization_header"), signingSecret: try row.string("signing_secret"),
            createdAt: try row.date("created_at"), disabledAt: row.optionalDate("disabled_at")
        )
    }
}

extension WebhookDelivery {
    init(row: SQLRow) throws {
        self.init(
            id: try row.string("id"), endpointID: try row.string("endpoint_id"), appID: try row.string("app_id"),
            eventID: try row.string("event_id"), eventType: try row.string("event_type"), body: try row.string("body"),
            createdAt: try row.date("created_at"), nextAttemptAt: try row.date("next_attempt_at"), attempts: Int(try row.int("attempts")),
            deliveredAt: row.optionalDate("delivered_at"), failedAt: row.optionalDate("failed_at")
        )
    }
}

/// A delivery with its latest attempt, for the console's delivery log.
public struct DeliveryLogEntry: Sendable {
    public let delivery: WebhookDelivery
    public let lastAttempt: WebhookAttempt?
}

extension SQLStore {
    /// The app's newest deliveries, each with its latest attempt, in one statement.
    public func webhookDeliveryLog(appID: String, limit: Int) async throws -> [DeliveryLogEntry] {
        try await read { connection in
            try await connection.query(
                """
                SELECT d.*, a.attempted_at AS last_attempted_at, a.status_code AS last_status_code, a.error AS last_error,
                    a.duration_ms AS last_duration_ms
                FROM webhook_deliveries d
                LEFT JOIN webhook_attempts a ON a.id = (
                    SELECT id FROM webhook_attempts WHERE delivery_id = d.id ORDER BY attempted_at DESC, id DESC LIMIT 1)
                WHERE d.app_id = \(appID) ORDER BY d.created_at DESC, d.id DESC LIMIT \(limit)
                """
            ).map { row in
                let attempt = row.optionalDate("last_attempted_at").map { at in
                    WebhookAttempt(
                        attemptedAt: at, statusCode: row.optionalInt("last_status_code").map(Int.init), error: row.optionalString("last_error"),
                        durationMs: row.optionalInt("last_duration_ms") ?? 0)
                }
                return DeliveryLogEntry(delivery: try WebhookDelivery(row: row), lastAttempt: attempt)
            }
        }
    }
}
