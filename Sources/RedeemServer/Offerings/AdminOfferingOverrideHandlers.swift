import RedeemCore
import RedeemStore

/// A customer's chosen offering through the admin API (`redeem customers offering`): the same override the console's
/// customer page and RevenueCat's v1 routes set, with an admin key or the app's secret key.
extension APIHandlers {
    func getCustomerOffering(_ input: Operations.GetCustomerOffering.Input) async throws -> Operations.GetCustomerOffering.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let chosen = try await deps.offeringOverrides.current(appID: appID, appUserID: try AppUserID.parse(input.path.appUserId))
        return .ok(.init(body: .json(.init(chosen))))
    }

    func setCustomerOffering(_ input: Operations.SetCustomerOffering.Input) async throws -> Operations.SetCustomerOffering.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let body) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        guard !body.offeringId.isEmpty else { throw APIError.badRequest("offering_id names no offering.", field: "offering_id") }
        let chosen = try await deps.offeringOverrides.set(
            appID: appID, appUserID: try AppUserID.parse(input.path.appUserId), offeringID: body.offeringId, actor: try keyActor())
        return .ok(.init(body: .json(.init(chosen))))
    }

    func removeCustomerOffering(_ input: Operations.RemoveCustomerOffering.Input) async throws -> Operations.RemoveCustomerOffering.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        try await deps.offeringOverrides.set(
            appID: appID, appUserID: try AppUserID.parse(input.path.appUserId), offeringID: nil, actor: try keyActor())
        return .ok(.init(body: .json(.init(nil))))
    }
}

extension Components.Schemas.CustomerOffering {
    init(_ chosen: OfferingOverride?) {
        self.init(offeringId: chosen?.offeringID, chosenAt: chosen?.setAt)
    }
}
