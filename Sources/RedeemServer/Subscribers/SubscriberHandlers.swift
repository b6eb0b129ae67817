import Foundation
import RedeemCore
import RedeemStore

/// RevenueCat's REST API v1 for backends (the app's secret key): erase a customer, grant and revoke entitlements.
extension APIHandlers {
    func deleteSubscriber(_ input: Operations.DeleteSubscriber.Input) async throws -> Operations.DeleteSubscriber.Output {
        let appID = try context.secretAppID()
        let appUserID = try AppUserID.parse(input.path.appUserId)
        guard try await deps.erasure.erase(appID: appID, appUserID: appUserID, actor: try keyActor()) else {
            throw APIError.notFound("No customer has the app user ID '\(appUserID.rawValue)'.")
        }
        return .ok(.init(body: .json(.init(appUserId: appUserID.rawValue, deleted: true))))
    }

    func grantPromotionalEntitlement(
        _ input: Operations.GrantPromotionalEntitlement.Input
    ) async throws -> Operations.GrantPromotionalEntitlement.Output {
        let appID = try context.secretAppID()
        let appUserID = try AppUserID.parse(input.path.appUserId)
        guard case .json(let body) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        let duration = body.duration.flatMap { PromotionalDuration(rawValue: $0.rawValue) }
        let until = body.endTimeMs.map(Date.init(milliseconds:))
        do {
            // RevenueCat prefers `end_time_ms` when both are given.
            _ = try await deps.support.grant(
                appID: appID, appUserID: appUserID.rawValue, entitlementID: input.path.entitlementId,
                duration: until == nil ? duration : nil, until: until, start: body.startTimeMs.map(Date.init(milliseconds:)),
                actor: try keyActor())
        } catch let error as ValidationError {
            // RevenueCat answers 400 and names its own fields.
            let field = ["until": "end_time_ms", "entitlement_id": "entitlement_identifier"][error.field] ?? error.field
            throw APIError.badRequest("\(field) \(error.reason).", field: field)
        }
        return .created(.init(body: .json(try await deps.identity.customerInfo(appID: appID, appUserID: appUserID, withAttributes: true))))
    }

    func revokePromotionalEntitlements(
        _ input: Operations.RevokePromotionalEntitlements.Input
    ) async throws -> Operations.RevokePromotionalEntitlements.Output {
        let appID = try context.secretAppID()
        let appUserID = try AppUserID.parse(input.path.appUserId)
        try await deps.support.revokeGrants(
            appID: appID, appUserID: appUserID.rawValue, entitlementID: input.path.entitlementId, actor: try keyActor())
        return .ok(.init(body: .json(try await deps.identity.customerInfo(appID: appID, appUserID: appUserID, withAttributes: true))))
    }
}

/// RevenueCat's offering override, for backends (the app's secret key).
extension APIHandlers {
    func overrideCurrentOffering(_ input: Operations.OverrideCurrentOffering.Input) async throws -> Operations.OverrideCurrentOffering.Output {
        .ok(.init(body: .json(try await setOfferingOverride(input.path.appUserId, to: input.path.offeringUuid))))
    }

    func removeCurrentOfferingOverride(
        _ input: Operations.RemoveCurrentOfferingOverride.Input
    ) async throws -> Operations.RemoveCurrentOfferingOverride.Output {
        .ok(.init(body: .json(try await setOfferingOverride(input.path.appUserId, to: nil))))
    }

    /// Sets or removes (`nil`) the override; the CustomerInfo both answer, as RevenueCat's do.
    private func setOfferingOverride(_ user: String, to offeringID: String?) async throws -> CustomerInfo {
        let appID = try context.secretAppID()
        let appUserID = try AppUserID.parse(user)
        try await deps.offeringOverrides.set(appID: appID, appUserID: appUserID, offeringID: offeringID, actor: try keyActor())
        return try await deps.identity.customerInfo(appID: appID, appUserID: appUserID, withAttributes: true)
    }
}
