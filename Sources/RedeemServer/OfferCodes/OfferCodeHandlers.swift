import RedeemCore

/// `POST /v1/subscribers/redeem_offer_code`: an offer code typed in the app.
extension APIHandlers {
    func redeemOfferCode(_ input: Operations.RedeemOfferCode.Input) async throws -> Operations.RedeemOfferCode.Output {
        let context = try self.context
        let appID = try context.sdkAppID()
        guard case .json(let request) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        let claimant = try AppUserID.parse(request.appUserId)
        let sandbox = context.key?.kind == .publicSandbox
        switch try await deps.offerCodes.redeemInApp(appID: appID, code: request.code, claimant: claimant, sandbox: sandbox, ip: context.remoteIP) {
        case .success(let (redemption, info)):
            return .ok(.init(body: .json(CustomerInfoWith(deps.managed(info, appID: appID), "offer_redemption", OfferRedemptionInfo(redemption)))))
        case .failure(let refusal):
            var error = APIError(refusal.failure.errorCode, refusal.failure.message)
            if let url = refusal.redeemURL { error.extra["redeem_url"] = url }
            throw error
        }
    }
}

/// `redeem_offer_code`'s success body: CustomerInfo plus `offer_redemption`.
typealias OfferCodeSuccess = CustomerInfoWith<OfferRedemptionInfo>
