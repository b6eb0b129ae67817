import RedeemCore

/// `POST /v1/subscribers/{id}/attributes`, for RevenueCat's SDKs (public keys) and backends (the secret key).
extension APIHandlers {
    func setSubscriberAttributes(_ input: Operations.SetSubscriberAttributes.Input) async throws -> Operations.SetSubscriberAttributes.Output {
        let appID = try context.sdkAppID()
        let appUserID = try AppUserID.parse(input.path.appUserId)
        guard case .json(let body) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        let backend = try context.key?.kind == .secret
        let refused = try await deps.attributes.set(appID: appID, appUserID: appUserID, body, fromBackend: backend)
        guard !refused.isEmpty else {
            let info = try await deps.identity.customerInfo(appID: appID, appUserID: appUserID, withAttributes: backend)
            return .ok(.init(body: .json(info)))
        }
        return .badRequest(
            .init(
                body: .json(
                    .init(
                        code: ErrorCode.invalidSubscriberAttributes.rawValue, message: "Some subscriber attributes were not saved; the others were.",
                        attributeErrors: refused.map { .init(keyName: $0.key, message: $0.message) }))))
    }
}
