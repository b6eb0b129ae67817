import RedeemStore

/// `/admin/v1/apps/{app_id}/webhooks`: endpoints for server notifications, their deliveries, replays and test events.
extension APIHandlers {
    func createWebhook(_ input: Operations.CreateWebhook.Input) async throws -> Operations.CreateWebhook.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let requestID = try RequestID.idempotencyKey(header: input.headers.idempotencyKey)
        guard case .json(let request) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        let endpoint = try await webhookEndpoints.createEndpoint(
            appID: appID, url: request.url, authorization: request.authorization, requestID: requestID)
        return .created(.init(body: .json(WebhookEndpointView(endpoint, showSecret: true))))
    }

    func listWebhooks(_ input: Operations.ListWebhooks.Input) async throws -> Operations.ListWebhooks.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let endpoints = try await webhookEndpoints.endpoints(appID: appID)
        return .ok(.init(body: .json(.init(webhooks: endpoints.map { WebhookEndpointView($0, showSecret: false) }))))
    }

    func disableWebhook(_ input: Operations.DisableWebhook.Input) async throws -> Operations.DisableWebhook.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        try await webhookEndpoints.disableEndpoint(appID: appID, id: input.path.endpointId)
        return .noContent(.init())
    }

    func sendTestWebhook(_ input: Operations.SendTestWebhook.Input) async throws -> Operations.SendTestWebhook.Output {
        try await webhookEndpoints.sendTestEvent(appID: try await admin.authorized(appID: input.path.appId, context))
        return .accepted(.init())
    }

    func listWebhookDeliveries(_ input: Operations.ListWebhookDeliveries.Input) async throws -> Operations.ListWebhookDeliveries.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        return .ok(.init(body: .json(.init(deliveries: try await webhookEndpoints.deliveries(appID: appID)))))
    }

    func getWebhookDelivery(_ input: Operations.GetWebhookDelivery.Input) async throws -> Operations.GetWebhookDelivery.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let found = try await webhookEndpoints.delivery(appID: appID, id: input.path.deliveryId)
        return .ok(.init(body: .json(.init(delivery: found.delivery, attempts: found.attempts))))
    }

    func replayWebhookDelivery(_ input: Operations.ReplayWebhookDelivery.Input) async throws -> Operations.ReplayWebhookDelivery.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        try await webhookEndpoints.replay(appID: appID, deliveryID: input.path.deliveryId)
        return .accepted(.init())
    }
}
