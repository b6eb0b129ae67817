import Foundation
import Hummingbird
import RedeemCore
import RedeemStore
import RedeemWebhooks

/// `/admin/v1/apps/{app_id}/webhooks`: endpoints for server notifications, their deliveries, replays and test events.
struct AdminWebhooksController {
    let admin: AdminService
    let store: any WebhookAdminStore
    let worker: WebhookDeliveryWorker?

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("/apps/{app_id}/webhooks", use: create)
        group.get("/apps/{app_id}/webhooks", use: list)
        group.delete("/apps/{app_id}/webhooks/{endpoint_id}", use: disable)
        group.post("/apps/{app_id}/webhooks/test", use: test)
        group.get("/apps/{app_id}/webhooks/deliveries", use: deliveries)
        group.get("/apps/{app_id}/webhooks/deliveries/{delivery_id}", use: delivery)
        group.post("/apps/{app_id}/webhooks/deliveries/{delivery_id}/replay", use: replay)
    }

    struct CreateRequest: Decodable {
        let url: String
        let authorization: String?
    }

    /// An endpoint as listed: everything but the signing secret, which is shown once at creation.
    struct EndpointView: Encodable {
        let endpoint: WebhookEndpoint
        let showSecret: Bool

        enum Keys: String, CodingKey {
            case id, url
            case appID = "app_id"
            case authorization = "has_authorization"
            case signingSecret = "signing_secret"
            case createdAt = "created_at"
            case disabledAt = "disabled_at"
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(endpoint.id, forKey: .id)
            try c.encode(endpoint.appID, forKey: .appID)
            try c.encode(endpoint.url, forKey: .url)
            try c.encode(endpoint.authorization != nil, forKey: .authorization)
            try c.encode(endpoint.createdAt, forKey: .createdAt)
            try c.encodeIfPresent(endpoint.disabledAt, forKey: .disabledAt)
            if showSecret { try c.encode(endpoint.signingSecret, forKey: .signingSecret) }
        }
    }

    struct EndpointList: Encodable { let webhooks: [EndpointView] }
    struct DeliveryList: Encodable { let deliveries: [WebhookDelivery] }
    struct DeliveryDetail: Encodable {
        let delivery: WebhookDelivery
        let attempts: [WebhookAttempt]
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<EndpointView> {
        let appID = try await admin.authorizedAppID(context)
        let input = try await request.decodeJSON(CreateRequest.self, context: context)
        guard Formats.isHTTPSURL(input.url) || Formats.isLocalhostURL(input.url) else {
            throw ValidationError(field: "url", reason: "must be an https URL (http only for localhost)")
        }
        if let authorization = input.authorization, authorization.contains(where: { $0 == "\r" || $0 == "\n" }) || authorization.count > 1024 {
            throw ValidationError(field: "authorization", reason: "must be one header line of at most 1024 characters")
        }
        let endpoint = WebhookEndpoint(
            id: Identifier.make(prefix: "whk"), appID: appID, url: input.url, authorization: input.authorization,
            signingSecret: WebhookSecret.generate(), createdAt: admin.clock.now()
        )
        try await store.createWebhookEndpoint(endpoint)
        return JSONResponse(EndpointView(endpoint: endpoint, showSecret: true), status: .created)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<EndpointList> {
        let appID = try await admin.authorizedAppID(context)
        return JSONResponse(
            EndpointList(webhooks: try await store.webhookEndpoints(appID: appID).map { EndpointView(endpoint: $0, showSecret: false) }))
    }

    @Sendable func disable(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let appID = try await admin.authorizedAppID(context)
        try await store.disableWebhookEndpoint(id: try context.parameters.decoded("endpoint_id"), appID: appID, at: admin.clock.now())
        return .noContent
    }

    @Sendable func test(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let appID = try await admin.authorizedAppID(context)
        try await store.emit(
            .test(appID: appID, eventID: "evt_" + SecretToken.generate(byteCount: 12), at: admin.clock.now()), now: admin.clock.now())
        worker?.wake()
        return .accepted
    }

    @Sendable func deliveries(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<DeliveryList> {
        let appID = try await admin.authorizedAppID(context)
        return JSONResponse(DeliveryList(deliveries: try await store.webhookDeliveries(appID: appID, limit: 100)))
    }

    @Sendable func delivery(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<DeliveryDetail> {
        let appID = try await admin.authorizedAppID(context)
        let id = try context.parameters.decoded("delivery_id")
        guard let delivery = try await store.webhookDeliveries(appID: appID, limit: 10_000).first(where: { $0.id == id }) else {
            throw StoreError.notFound("webhook delivery '\(id)'")
        }
        return JSONResponse(DeliveryDetail(delivery: delivery, attempts: try await store.webhookAttempts(deliveryID: id)))
    }

    @Sendable func replay(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let appID = try await admin.authorizedAppID(context)
        try await store.replayDelivery(id: try context.parameters.decoded("delivery_id"), appID: appID, now: admin.clock.now())
        worker?.wake()
        return .accepted
    }
}
