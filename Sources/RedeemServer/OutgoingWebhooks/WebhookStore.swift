import Foundation
import RedeemCore
import RedeemStore
import RedeemWebhooks

/// The delivery queue the worker drains.
public protocol WebhookQueueStore: Sendable {
    func claimDueDeliveries(now: Date, lease: TimeInterval, limit: Int, perEndpoint: Int) async throws -> [(WebhookDelivery, WebhookEndpoint)]
    func recordDeliveryAttempt(deliveryID: String, attempt: WebhookAttempt, delivered: Bool, retryAt: Date?) async throws
}

/// What the admin API's webhook routes (and the CLI) need.
public protocol WebhookAdminStore: Sendable {
    func createWebhookEndpoint(_ endpoint: WebhookEndpoint, audit: AuditEntry?) async throws
    func disableWebhookEndpoint(id: String, appID: String, at date: Date, audit: AuditEntry?) async throws
    func webhookEndpoints(appID: String) async throws -> [WebhookEndpoint]
    func webhookDeliveries(appID: String, limit: Int) async throws -> [WebhookDelivery]
    func webhookAttempts(deliveryID: String) async throws -> [WebhookAttempt]
    func webhookDeliveryLog(appID: String, limit: Int) async throws -> [DeliveryLogEntry]
    func replayDelivery(id: String, appID: String, now: Date, audit: AuditEntry?) async throws
    func emit(_ event: WebhookEvent, now: Date, audit: AuditEntry?) async throws
}
