import RedeemCore

/// `/admin/v1/apps/{app_id}/purchases/{purchase_id}`: a purchase and the history of its redemption links, for support.
extension APIHandlers {
    func getPurchase(_ input: Operations.GetPurchase.Input) async throws -> Operations.GetPurchase.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let purchaseID = input.path.purchaseId
        let purchase = try await admin.store.purchase(appID: appID, id: purchaseID)
        let attempts = try await admin.store.redemptionAttempts(appID: appID, purchaseID: purchaseID)
        return .ok(.init(body: .json(.init(purchase: purchase, redemptionAttempts: attempts))))
    }
}
