import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `/admin/v1/apps/{app_id}/products` and `/entitlements`.
struct AdminCatalogController {
    let admin: AdminService

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("/apps/{app_id}/products", use: createProduct)
        group.get("/apps/{app_id}/products", use: listProducts)
        group.get("/apps/{app_id}/products/{product_id}", use: showProduct)
        group.patch("/apps/{app_id}/products/{product_id}", use: updateProduct)
        group.post("/apps/{app_id}/entitlements", use: createEntitlement)
        group.get("/apps/{app_id}/entitlements", use: listEntitlements)
        group.get("/apps/{app_id}/entitlements/{entitlement_id}", use: showEntitlement)
        group.patch("/apps/{app_id}/entitlements/{entitlement_id}", use: updateEntitlement)
    }

    struct ProductList: Encodable { let products: [Product] }
    struct EntitlementList: Encodable { let entitlements: [Entitlement] }
    struct EntitlementUpdate: Decodable {
        let displayName: String?
        enum CodingKeys: String, CodingKey { case displayName = "display_name" }
    }

    @Sendable func createProduct(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Product> {
        let appID = try await admin.authorizedAppID(context)
        let input = try await request.decodeAdminJSON(ProductInput.self, context: context)
        return JSONResponse(try await admin.createProduct(appID: appID, input), status: .created)
    }

    @Sendable func listProducts(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<ProductList> {
        JSONResponse(ProductList(products: try await admin.store.products(appID: try await admin.authorizedAppID(context))))
    }

    @Sendable func showProduct(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Product> {
        let appID = try await admin.authorizedAppID(context)
        return JSONResponse(try await admin.store.product(appID: appID, id: try context.parameters.decoded("product_id")))
    }

    @Sendable func updateProduct(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Product> {
        let appID = try await admin.authorizedAppID(context)
        let update = try await request.decodeAdminJSON(ProductUpdate.self, context: context)
        return JSONResponse(try await admin.updateProduct(appID: appID, id: try context.parameters.decoded("product_id"), update))
    }

    @Sendable func createEntitlement(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Entitlement> {
        let appID = try await admin.authorizedAppID(context)
        let input = try await request.decodeAdminJSON(EntitlementInput.self, context: context)
        return JSONResponse(try await admin.createEntitlement(appID: appID, input), status: .created)
    }

    @Sendable func listEntitlements(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<EntitlementList> {
        JSONResponse(EntitlementList(entitlements: try await admin.store.entitlements(appID: try await admin.authorizedAppID(context))))
    }

    @Sendable func showEntitlement(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Entitlement> {
        let appID = try await admin.authorizedAppID(context)
        return JSONResponse(try await admin.store.entitlement(appID: appID, id: try context.parameters.decoded("entitlement_id")))
    }

    @Sendable func updateEntitlement(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Entitlement> {
        let appID = try await admin.authorizedAppID(context)
        let update = try await request.decodeAdminJSON(EntitlementUpdate.self, context: context)
        let id = try context.parameters.decoded("entitlement_id")
        return JSONResponse(try await admin.updateEntitlement(appID: appID, id: id, displayName: update.displayName))
    }
}
