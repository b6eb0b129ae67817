import RedeemCore

/// `GET /admin/v1/apps/{app_id}/metrics`.
extension APIHandlers {
    func getSubscriptionMetrics(_ input: Operations.GetSubscriptionMetrics.Input) async throws -> Operations.GetSubscriptionMetrics.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let environment = MetricsEnvironment(rawValue: (input.query.environment ?? .production).rawValue) ?? .production
        let report = try await deps.subscriptionMetrics.report(appID: appID, environment: environment, days: input.query.days ?? 30)
        return .ok(.init(body: .json(report)))
    }
}
