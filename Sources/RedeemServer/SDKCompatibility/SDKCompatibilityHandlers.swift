import RedeemCore

/// The calls RevenueCat's SDKs make that Redeem has nothing to do for, answered as the SDKs need so none is an error
/// (a 404 makes some send it again at every foreground, and others log an error): remote configuration, events,
/// diagnostics, attribution, introductory-offer eligibility, promotional-offer signing, virtual currencies, and store
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

    /// iOS's StoreKit 1 path asks which products' introductory offers the user may have. No App Store receipt is seen
    /// here, so none is known: `{}`, every product `.unknown` to the SDK.
    func postIntroEligibility(_ input: Operations.PostIntroEligibility.Input) async throws -> Operations.PostIntroEligibility.Output {
        _ = try context.sdkAppID()
        _ = try AppUserID.parse(input.path.appUserId)
        return .ok(.init(body: .json(.init())))
    }

    /// Dropped, and answered so the SDK stops sending the token at every foreground.
    func postAdServicesAttribution(
        _ input: Operations.PostAdServicesAttribution.Input
    ) async throws -> Operations.PostAdServicesAttribution.Output {
        _ = try context.sdkAppID()
        _ = try AppUserID.parse(input.path.appUserId)
        return .ok(.init(body: .json(.init())))
    }

    func postAttribution(_ input: Operations.PostAttribution.Input) async throws -> Operations.PostAttribution.Output {
        _ = try context.sdkAppID()
        _ = try AppUserID.parse(input.path.appUserId)
        return .ok(.init(body: .json(.init())))
    }

    /// Promotional offers need a signature from the app's App Store Connect key, which Redeem does not hold: each offer
    /// comes back with RevenueCat's 7232, so the SDK treats it as one the user cannot have, without an error log.
    func postOfferForSigning(_ input: Operations.PostOfferForSigning.Input) async throws -> Operations.PostOfferForSigning.Output {
        _ = try context.sdkAppID()
        guard case .json(let body) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        _ = try AppUserID.parse(body.appUserId)
        guard body.generateOffers.count <= 100 else {
            throw APIError.badRequest("generate_offers holds at most 100 offers.", field: "generate_offers")
        }
        let refusal = Components.Schemas.SignatureError(
            code: ErrorCode.promotionalOfferNotSigned.rawValue,
            message: "Redeem does not sign App Store promotional offers: it does not hold the app's App Store Connect key.")
        let offers = body.generateOffers.map {
            Components.Schemas.SignedOffer(keyId: "", offerId: $0.offerId, productId: $0.productId, signatureError: refusal)
        }
        return .ok(.init(body: .json(.init(offers: offers))))
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
