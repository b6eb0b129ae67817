import RedeemCore

/// `POST /v1/subscribers/identify` (RevenueCat's `logIn`) and `POST /v1/subscribers/{id}/alias` (Android's restore).
extension APIHandlers {
    func logIn(_ input: Operations.LogIn.Input) async throws -> Operations.LogIn.Output {
        let appID = try context.sdkAppID()
        guard case .json(let body) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        let (info, created) = try await deps.identity.logIn(
            appID: appID, current: try AppUserID.parse(body.appUserId), new: try AppUserID.parse(body.newAppUserId),
            sandbox: try context.key?.kind == .publicSandbox)
        return created ? .created(.init(body: .json(info))) : .ok(.init(body: .json(info)))
    }

    func aliasSubscriber(_ input: Operations.AliasSubscriber.Input) async throws -> Operations.AliasSubscriber.Output {
        let appID = try context.sdkAppID()
        guard case .json(let body) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        try await deps.identity.restoreAlias(
            appID: appID, previous: try AppUserID.parse(input.path.appUserId), current: try AppUserID.parse(body.newAppUserId),
            sandbox: try context.key?.kind == .publicSandbox)
        return .ok(.init(body: .json(.init())))
    }
}
