import RedeemCore

/// `/admin/v1/apps/{app_id}/products/{product_id}/prices…` and `/trial`.
extension APIHandlers {
    func getProductPrices(_ input: Operations.GetProductPrices.Input) async throws -> Operations.GetProductPrices.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let billing = try await admin.productBilling(appID: appID, productID: input.path.productId)
        return .ok(.init(body: .json(Self.pricing(input.path.productId, billing))))
    }

    func setProductPrice(_ input: Operations.SetProductPrice.Input) async throws -> Operations.SetProductPrice.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let body) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        let service = try admin
        let billing = try await service.setProductPrice(
            appID: appID, productID: input.path.productId, currency: input.path.currency, amount: body.amount, makeDefault: body._default ?? false)
        let product = try await service.product(appID: appID, id: input.path.productId)
        let synced = await deps.stripePrices.sync(billing, product: product, taxCode: try await service.app(id: appID).stripeTaxCode)
        return .ok(.init(body: .json(Self.pricing(product.id, synced))))
    }

    func removeProductPrice(_ input: Operations.RemoveProductPrice.Input) async throws -> Operations.RemoveProductPrice.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let billing = try await admin.removeProductPrice(appID: appID, productID: input.path.productId, currency: input.path.currency)
        return .ok(.init(body: .json(Self.pricing(input.path.productId, billing))))
    }

    func setProductTrial(_ input: Operations.SetProductTrial.Input) async throws -> Operations.SetProductTrial.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let body) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        let billing = try await admin.setProductTrial(appID: appID, productID: input.path.productId, days: body.trialDays)
        return .ok(.init(body: .json(Self.pricing(input.path.productId, billing))))
    }

    static func pricing(_ productID: String, _ billing: ProductBilling) -> Components.Schemas.ProductPricing {
        let view = ProductPricingView(productID: productID, billing)
        return .init(
            productId: view.productID, trialDays: view.trialDays,
            prices: view.prices.map { .init(currency: $0.currency, amount: $0.amount, isDefault: $0.isDefault, stripePriceId: $0.stripePriceID) })
    }
}
