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
    /// Who the writes are recorded under; reads need none.
    public let actor: String?

    public struct Delivery: Sendable {
        public let delivery: WebhookDelivery
        public let attempts: [WebhookAttempt]
    }

    /// `worker` nil (the CLI): a queued delivery goes out on the server's next pass.
    public init(store: any WebhookAdminStore, clock: any RedeemClock, worker: WebhookDeliveryWorker?, actor: String? = nil) {
        self.store = store
        self.clock = clock
        self.worker = worker
        self.actor = actor
    }

    /// The same service, its writes recorded under `actor`.
    public func acting(as actor: String) -> WebhookEndpointService {
        WebhookEndpointService(store: store, clock: clock, worker: worker, actor: actor)
    }

    /// A new endpoint with a fresh signing secret (returned once, to be shown once).
    /// `requestID`: the console form's own ID or the API caller's `Idempotency-Key`. Sending it again (a double click, a
    /// retry) answers with the endpoint it added, its secret included, instead of adding a second one that would get
    /// every event twice, signed with a secret nobody saw.
    public func createEndpoint(appID: String, url: String, authorization: String?, requestID: RequestID? = nil) async throws -> WebhookEndpoint {
        guard Formats.isHTTPSURL(url) || Formats.isLocalhostURL(url) else {
            throw ValidationError(field: "url", reason: "must be an https URL (http only for localhost)")
        }
        if let authorization, authorization.contains(where: { $0 == "\r" || $0 == "\n" }) || authorization.count > 1024 {
            throw ValidationError(field: "authorization", reason: "must be one header line of at most 1024 characters")
        }
        // The request's endpoint ID: one per request ID, however often it is sent. A repeat meets the first one's row.
        // Endpoint IDs are unique across apps, and two apps may well pick the same key: the app is hashed in.
        let id = requestID?.derivedID(prefix: "whk", scope: "webhook-request:\(appID)") ?? Identifier.make(prefix: "whk")
        let endpoint = WebhookEndpoint(
            id: id, appID: appID, url: url, authorization: authorization, signingSecret: WebhookSecret.generate(), createdAt: clock.now())
        do {
            try await store.createWebhookEndpoint(endpoint, audit: try audit("webhook.create", "webhook", endpoint.id, appID: appID, detail: url))
        } catch let error as StoreError where error.isConflict && requestID != nil {
            // The same form, sent before or at the same moment, added it first.
            guard let requestID, let earlier = try await added(appID: appID, id: id, by: requestID, url: url, authorization: authorization)
            else { throw error }
            return earlier
        }
        return endpoint
    }

    /// The endpoint a request ID already added, if it did; refused when that ID is now sent for another endpoint.
    private func added(appID: String, id: String, by requestID: RequestID, url: String, authorization: String?) async throws -> WebhookEndpoint? {
        guard let earlier = try await store.webhookEndpoints(appID: appID).first(where: { $0.id == id }) else { return nil }
        guard earlier.url == url, earlier.authorization == authorization else { throw requestID.refusal("added \(earlier.url)") }
        return earlier
    }

    public func endpoints(appID: String) async throws -> [WebhookEndpoint] { try await store.webhookEndpoints(appID: appID) }

    /// The app's latest 100 deliveries, newest first.
    func deliveryLog(appID: String) async throws -> [DeliveryLogEntry] { try await store.webhookDeliveryLog(appID: appID, limit: 100) }

    public func disableEndpoint(appID: String, id: String) async throws {
        try await store.disableWebhookEndpoint(
            id: id, appID: appID, at: clock.now(), audit: try audit("webhook.disable", "webhook", id, appID: appID))
    }

    public func sendTestEvent(appID: String) async throws {
        let now = clock.now()
        let event = WebhookEvent.test(appID: appID, eventID: "evt_" + SecretToken.generate(byteCount: 12), at: now)
        try await store.emit(event, now: now, audit: try audit("webhook.test", "webhook_event", event.id, appID: appID))
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
        try await store.replayDelivery(
            id: deliveryID, appID: appID, now: clock.now(), audit: try audit("webhook.replay", "webhook_delivery", deliveryID, appID: appID))
        worker?.wake()
    }

    /// The audit entry a write commits with; a write with no actor is refused, never recorded as nobody's.
    func audit(_ action: String, _ objectType: String, _ objectID: String, appID: String, detail: String? = nil) throws -> AuditEntry {
        guard let actor else { throw APIError(.internalError, "A write with no actor to record it under.") }
        return AuditEntry(at: clock.now(), actor: actor, action: action, objectType: objectType, objectID: objectID, appID: appID, detail: detail)
    }
}
