import RedeemCore

/// The calls RevenueCat's SDKs make that Redeem has nothing to do for, answered as the SDKs need so none is an error
/// (a 404 makes them send it again forever): remote configuration, events, diagnostics, virtual currencies, and store
/// receipts (refused with a code of its own unless there is nothing to validate).
extension APIHandlers {
    func getRemoteConfig(_ input: Operations.GetRemoteConfig.Input) async throws -> Operations.GetRemoteConfig.Output {
        _ = try context.sdkAppID()
        return .noContent(.init())
    }

    func postSDKEvents(_ input: Operations.PostSDKEvents.Input) async throws -> Operations.PostSDKEvents.Output {
        _ = try context.sdkAppID()
        return .ok(.init(body: .json(.init())))
    }

    func postSDKDiagnostics(_ input: Operations.PostSDKDiagnostics.Input) async throws -> Operations.PostSDKDiagnostics.Output {
        _ = try context.sdkAppID()
        return .ok(.init(body: .json(.init())))
    }

    func getVirtualCurrencies(_ input: Operations.GetVirtualCurrencies.Input) async throws -> Operations.GetVirtualCurrencies.Output {
        _ = try context.sdkAppID()
        _ = try AppUserID.parse(input.path.appUserId)
        return .ok(.init(body: .json(.init(virtualCurrencies: .init()))))
    }

    /// A store purchase is refused (7990): Redeem validates none. Without one (iOS's restore for someone who bought only on
    /// the web) it answers the user's CustomerInfo, so the restore works.
    func postReceipt(_ input: Operations.PostReceipt.Input) async throws -> Operations.PostReceipt.Output {
        let appID = try context.sdkAppID()
        guard case .json(let body) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        let appUserID = try AppUserID.parse(body.appUserId)
        if let token = body.fetchToken, !token.isEmpty {
            throw APIError(
                .storePurchasesNotValidated,
                "Redeem does not validate App Store or Google Play purchases; an app that sells in the stores keeps RevenueCat's SDK on RevenueCat (see docs/revenuecat-sdks.md)."
            )
        }
        return .ok(.init(body: .json(try await deps.identity.customerInfo(appID: appID, appUserID: appUserID))))
    }
}
