import Foundation

extension Redeem {
    /// Redeems a web purchase for the current user.
    ///
    /// Calls the delegate's `willRedeemLink()` first and `didRedeemLink(result:)` last, exactly once
    /// each. Identical redemptions in flight (same user and token) share one request. Never throws:
    /// every failure, including cancellation, is `.error`.
    public func redeemWebPurchase(_ redemption: WebPurchaseRedemption) async -> WebPurchaseRedemptionResult {
        let delegate = await delegateBox.willRedeem()
        let result = await performRedemption(redemption)
        await delegateBox.didRedeem(result, to: delegate)
        return result
    }

    /// Completion-handler form of `redeemWebPurchase(_:)`; `completion` runs once, on the main actor.
    public func redeemWebPurchase(
        _ redemption: WebPurchaseRedemption,
        completion: @escaping @MainActor @Sendable (WebPurchaseRedemptionResult) -> Void
    ) {
        Task {
            let result = await redeemWebPurchase(redemption)
            await completion(result)
        }
    }

    /// Redeems an offer code for the current user. A blank code is `.invalid` without a request.
    public func redeemOfferCode(_ code: String) async -> OfferCodeRedemptionResult {
        let code = code.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !code.isEmpty else { return .invalid }
        let appUserID = identity.appUserID
        let result = ResponseMapping.offerCode(await backend.redeemOfferCode(code, appUserID: appUserID))
        if case .success(let info) = result {
            await customerInfoManager.receive(info, for: appUserID)
        }
        return result
    }

    /// Completion-handler form of `redeemOfferCode(_:)`; `completion` runs once, on the main actor.
    public func redeemOfferCode(
        _ code: String,
        completion: @escaping @MainActor @Sendable (OfferCodeRedemptionResult) -> Void
    ) {
        Task {
            let result = await redeemOfferCode(code)
            await completion(result)
        }
    }

    private func performRedemption(_ redemption: WebPurchaseRedemption) async -> WebPurchaseRedemptionResult {
        let appUserID = identity.appUserID
        let token = redemption.redemptionToken
        return await redemptions.run(key: "\(appUserID)\n\(token)") { [backend, customerInfoManager] in
            let response = await backend.redeemPurchase(token: token, appUserID: appUserID)
            let (result, info) = ResponseMapping.redemption(response)
            if let info {
                await customerInfoManager.receive(info, for: appUserID)
            }
            return result
        }
    }
}
