import RedeemCore

/// `POST /v1/redemption_links/request`, a new link by e-mail (`redeem_purchase` is `RedeemPurchaseController`).
extension APIHandlers {
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
