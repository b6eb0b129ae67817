import Foundation
import RedeemCore
import RedeemStore
import RedeemWebhooks

/// An app's webhook endpoints and their deliveries: what the admin API (and the console) can do with them.
public struct WebhookEndpointService: Sendable {
    let store: any WebhookAdminStore
    let clock: any RedeemClock
    /// Woken after a write that queues a delivery, so it goes out now rather than on the next pass.
    let worker: WebhookDeliveryWorker?

    public struct Delivery: Sendable {
        public let delivery: WebhookDelivery
        public let attempts: [WebhookAttempt]
    }

    /// `worker` nil (the CLI): a queued delivery goes out on the server's next pass.
    public init(store: any WebhookAdminStore, clock: any RedeemClock, worker: WebhookDeliveryWorker?) {
        self.store = store
        self.clock = clock
        self.worker = worker
    }

    /// A new endpoint with a fresh signing secret (returned once, to be shown once).
    public func createEndpoint(appID: String, url: String, authorization: String?) async throws -> WebhookEndpoint {
        guard Formats.isHTTPSURL(url) || Formats.isLocalhostURL(url) else {
            throw ValidationError(field: "url", reason: "must be an https URL (http only for localhost)")
        }
        if let authorization, authorization.contains(where: { $0 == "\r" || $0 == "\n" }) || authorization.count > 1024 {
            throw ValidationError(field: "authorization", reason: "must be one header line of at most 1024 characters")
        }
        let endpoint = WebhookEndpoint(
            id: Identifier.make(prefix: "whk"), appID: appID, url: url, authorization: authorization,
            signingSecret: WebhookSecret.generate(), createdAt: clock.now()
        )
        try await audited("webhook.create", "webhook", endpoint.id, appID: appID, detail: url) { try await store.createWebhookEndpoint(endpoint) }
        return endpoint
    }

    public func endpoints(appID: String) async throws -> [WebhookEndpoint] { try await store.webhookEndpoints(appID: appID) }

    public func disableEndpoint(appID: String, id: String) async throws {
        try await audited("webhook.disable", "webhook", id, appID: appID) {
            try await store.disableWebhookEndpoint(id: id, appID: appID, at: clock.now())
        }
    }

    public func sendTestEvent(appID: String) async throws {
        let now = clock.now()
        let event = WebhookEvent.test(appID: appID, eventID: "evt_" + SecretToken.generate(byteCount: 12), at: now)
        try await audited("webhook.test", "webhook_event", event.id, appID: appID) { try await store.emit(event, now: now) }
        worker?.wake()
    }

    public func deliveries(appID: String) async throws -> [WebhookDelivery] { try await store.webhookDeliveries(appID: appID, limit: 100) }

    public func delivery(appID: String, id: String) async throws -> Delivery {
        guard let delivery = try await store.webhookDeliveries(appID: appID, limit: 10_000).first(where: { $0.id == id }) else {
            throw StoreError.notFound("webhook delivery '\(id)'")
        }
        return Delivery(delivery: delivery, attempts: try await store.webhookAttempts(deliveryID: id))
    }

    public func replay(appID: String, deliveryID: String) async throws {
        try await audited("webhook.replay", "webhook_delivery", deliveryID, appID: appID) {
            try await store.replayDelivery(id: deliveryID, appID: appID, now: clock.now())
        }
        worker?.wake()
    }

    /// Runs a write whose transaction also records who did `action` (see `AuditScope`).
    func audited(
        _ action: String, _ objectType: String, _ objectID: String, appID: String, detail: String? = nil, _ write: () async throws -> Void
    ) async throws {
        try await AuditScope.recording(
            action: action, objectType: objectType, objectID: objectID, appID: appID, detail: detail, now: clock.now(), write)
    }
}
