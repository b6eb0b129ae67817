import Foundation
import Hummingbird
import RedeemCore
import RedeemStore
import RedeemWebhooks

/// `/admin/v1/apps/{app_id}/webhooks`: endpoints for server notifications, their deliveries, replays and test events.
struct AdminWebhooksController {
    let admin: AdminService
    let webhooks: WebhookEndpointService

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
        let input = try await request.decodeAdminJSON(CreateRequest.self, context: context)
        let endpoint = try await webhooks.createEndpoint(appID: appID, url: input.url, authorization: input.authorization)
        return JSONResponse(EndpointView(endpoint: endpoint, showSecret: true), status: .created)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<EndpointList> {
        let endpoints = try await webhooks.endpoints(appID: try await admin.authorizedAppID(context))
        return JSONResponse(EndpointList(webhooks: endpoints.map { EndpointView(endpoint: $0, showSecret: false) }))
    }

    @Sendable func disable(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let appID = try await admin.authorizedAppID(context)
        try await webhooks.disableEndpoint(appID: appID, id: try context.parameters.decoded("endpoint_id"))
        return .noContent
    }

    @Sendable func test(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        try await webhooks.sendTestEvent(appID: try await admin.authorizedAppID(context))
        return .accepted
    }

    @Sendable func deliveries(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<DeliveryList> {
        JSONResponse(DeliveryList(deliveries: try await webhooks.deliveries(appID: try await admin.authorizedAppID(context))))
    }

    @Sendable func delivery(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<DeliveryDetail> {
        let appID = try await admin.authorizedAppID(context)
        let found = try await webhooks.delivery(appID: appID, id: try context.parameters.decoded("delivery_id"))
        return JSONResponse(DeliveryDetail(delivery: found.delivery, attempts: found.attempts))
    }

    @Sendable func replay(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let appID = try await admin.authorizedAppID(context)
        try await webhooks.replay(appID: appID, deliveryID: try context.parameters.decoded("delivery_id"))
        return .accepted
    }
}
