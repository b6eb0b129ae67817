import RedeemCore

/// `GET /admin/v1/apps/{app_id}/customers/{app_user_id}/attributes`: what the console's customer page shows.
extension APIHandlers {
    func listCustomerAttributes(_ input: Operations.ListCustomerAttributes.Input) async throws -> Operations.ListCustomerAttributes.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        _ = try await admin.app(id: appID)
        let records = try await deps.attributes.records(appID: appID, appUserID: try AppUserID.parse(input.path.appUserId))
        let attributes = records.map {
            Components.Schemas.CustomerAttributes.AttributesPayloadPayload(
                key: $0.key, value: $0.value, updatedAt: $0.updatedAt, setWithSecretKey: $0.fromBackend)
        }
        return .ok(.init(body: .json(.init(attributes: attributes))))
    }
}
