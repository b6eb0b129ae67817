import RedeemCore

/// `/admin/v1/apps/{app_id}/products` (and each product's `/links`) and `/entitlements`.
extension APIHandlers {
    func createProduct(_ input: Operations.CreateProduct.Input) async throws -> Operations.CreateProduct.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let product) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        return .created(.init(body: .json(try await admin.createProduct(appID: appID, product))))
    }

    func listProducts(_ input: Operations.ListProducts.Input) async throws -> Operations.ListProducts.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        return .ok(.init(body: .json(.init(products: try await admin.products(appID: appID)))))
    }

    func getProduct(_ input: Operations.GetProduct.Input) async throws -> Operations.GetProduct.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        return .ok(.init(body: .json(try await admin.product(appID: appID, id: input.path.productId))))
    }

    func getProductLinks(_ input: Operations.GetProductLinks.Input) async throws -> Operations.GetProductLinks.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let query = input.query
        let utm = ["utm_source": query.utmSource, "utm_medium": query.utmMedium, "utm_campaign": query.utmCampaign].compactMapValues { $0 }
        let links = try await admin.purchaseLinks(
            appID: appID, productID: input.path.productId, publicURL: deps.publicURL, appUserID: query.appUserId, utm: utm)
        return .ok(.init(body: .json(links)))
    }

    func updateProduct(_ input: Operations.UpdateProduct.Input) async throws -> Operations.UpdateProduct.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let update) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        return .ok(.init(body: .json(try await admin.updateProduct(appID: appID, id: input.path.productId, update))))
    }

    func createEntitlement(_ input: Operations.CreateEntitlement.Input) async throws -> Operations.CreateEntitlement.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let entitlement) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        return .created(.init(body: .json(try await admin.createEntitlement(appID: appID, entitlement))))
    }

    func listEntitlements(_ input: Operations.ListEntitlements.Input) async throws -> Operations.ListEntitlements.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        return .ok(.init(body: .json(.init(entitlements: try await admin.entitlements(appID: appID)))))
    }

    func getEntitlement(_ input: Operations.GetEntitlement.Input) async throws -> Operations.GetEntitlement.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        return .ok(.init(body: .json(try await admin.entitlement(appID: appID, id: input.path.entitlementId))))
    }

    func updateEntitlement(_ input: Operations.UpdateEntitlement.Input) async throws -> Operations.UpdateEntitlement.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let update) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        let entitlement = try await admin.updateEntitlement(appID: appID, id: input.path.entitlementId, displayName: update.displayName)
        return .ok(.init(body: .json(entitlement)))
    }
}
