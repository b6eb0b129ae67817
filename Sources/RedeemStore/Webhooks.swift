import Foundation
import RedeemCore

/// An HTTPS endpoint of an app that receives server notifications.
public struct WebhookEndpoint: Codable, Hashable, Sendable {
    public var id: String
    public var appID: String
    public var url: String
    /// Sent verbatim as the `Authorization` header, as RevenueCat does.
    public var authorization: String?
    /// Signs every delivery (`Redeem-Signature`). Kept in plaintext: it must be known to sign.
    public var signingSecret: String
    public var createdAt: Date
    public var disabledAt: Date?

    public init(id: String, appID: String, url: String, authorization: String?, signingSecret: String, createdAt: Date, disabledAt: Date? = nil) {
        self.id = id
        self.appID = appID
        self.url = url
        self.authorization = authorization
        self.signingSecret = signingSecret
        self.createdAt = createdAt
        self.disabledAt = disabledAt
    }

    enum CodingKeys: String, CodingKey {
        case id, url, authorization
        case appID = "app_id"
        case signingSecret = "signing_secret"
        case createdAt = "created_at"
        case disabledAt = "disabled_at"
    }
}

/// One event on its way to one endpoint. The body, and so the event ID, never change across retries.
public struct WebhookDelivery: Codable, Hashable, Sendable {
    public var id: String
    public var endpointID: String
    public var appID: String
    public var eventID: String
    public var eventType: String
    public var body: String
    public var createdAt: Date
    public var nextAttemptAt: Date
    public var attempts: Int
    public var deliveredAt: Date?
    public var failedAt: Date?

    enum CodingKeys: String, CodingKey {
        case id, body, attempts
        case endpointID = "endpoint_id"
        case appID = "app_id"
        case eventID = "event_id"
        case eventType = "event_type"
        case createdAt = "created_at"
        case nextAttemptAt = "next_attempt_at"
        case deliveredAt = "delivered_at"
        case failedAt = "failed_at"
    }
}

/// One try at delivering, for the delivery log.
public struct WebhookAttempt: Codable, Hashable, Sendable {
    public var attemptedAt: Date
    public var statusCode: Int?
    public var error: String?
    public var durationMs: Int64

    public init(attemptedAt: Date, statusCode: Int?, error: String?, durationMs: Int64) {
        self.attemptedAt = attemptedAt
        self.statusCode = statusCode
        self.error = error
        self.durationMs = durationMs
    }

    enum CodingKeys: String, CodingKey {
        case error
        case attemptedAt = "attempted_at"
        case statusCode = "status_code"
        case durationMs = "duration_ms"
    }
}
