import RedeemCore

/// `POST /v1/subscribers/redeem_purchase`, a redemption link opened in the app (RevenueCat's wire format), and
/// `POST /v1/redemption_links/request`, a new link by e-mail.
extension APIHandlers {
    func redeemPurchase(_ input: Operations.RedeemPurchase.Input) async throws -> Operations.RedeemPurchase.Output {
        let context = try self.context
        let appID = try context.sdkAppID()
        guard case .json(let request) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        let claimant = try AppUserID.parse(request.appUserId)
        let reply = try await deps.redemption.redeem(appID: appID, token: request.redemptionToken, claimant: claimant, ip: context.remoteIP)
        switch reply {
        case .success(let info, let redemption):
            return .ok(.init(body: .json(CustomerInfoWith(deps.managed(info, appID: appID), "redemption_info", redemption))))
        case .subscriptionExpired(let info):
            return .forbidden(.init(body: .json(try RedemptionReply.subscriptionExpired(deps.managed(info, appID: appID)).failure)))
        case .expired: return .forbidden(.init(body: .json(try reply.failure)))
        case .invalid, .otherApp, .belongsToOtherUser: throw reply.error
        }
    }

    /// The answer is the same whether or not the address has purchases, so it reveals nothing.
    func requestNewRedemptionLink(
        _ input: Operations.RequestNewRedemptionLink.Input
    ) async throws
        -> Operations.RequestNewRedemptionLink.Output
    {
        let context = try self.context
        guard case .json(let request) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        try await deps.redemption.requestNewLinks(appID: try context.sdkAppID(), email: request.email, ip: context.remoteIP)
        return .accepted(.init(body: .json(.init(status: "accepted"))))
    }
}

/// `redeem_purchase`'s success body: CustomerInfo plus `redemption_info`.
typealias RedemptionSuccess = CustomerInfoWith<RedemptionInfo>
