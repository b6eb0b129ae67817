import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `/console/apps/{app_id}/products`: products (prices and periods in words, purchase links) and entitlements. Any
/// operator reads; owners create and edit, through `AdminService` (validated and audited there, as from the admin API
/// and the CLI).
struct ConsoleCatalogController {
    let service: ConsoleService
    let pages: ConsolePages
    let admin: AdminService
    let publicURL: URL
    /// Whether this server has Stripe, without which production links sell nothing.
    let paidCheckout: Bool
    /// Makes the Stripe Prices of a changed product's prices, when Stripe is configured.
    var stripePrices: StripePriceSync? = nil

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/console/apps/{app_id}/products", use: products)
        router.post("/console/apps/{app_id}/products", use: createProduct)
        router.post("/console/apps/{app_id}/products/{product_id}", use: updateProduct)
        router.post("/console/apps/{app_id}/entitlements", use: createEntitlement)
        router.post("/console/apps/{app_id}/products/{product_id}/prices", use: setPrice)
        router.post("/console/apps/{app_id}/products/{product_id}/prices/{currency}/remove", use: removePrice)
        router.post("/console/apps/{app_id}/products/{product_id}/trial", use: setTrial)
    }

    /// Adds or changes a price in a currency; the Stripe Price follows when Stripe is configured.
    @Sendable func setPrice(_ request: Request, context: ConsoleContext) async throws -> Response {
        let productID = try context.parameters.decoded("product_id")
        return try await write(request, context, .price(productID)) { form, appID, admin in
            let billing = try await admin.setProductPrice(
                appID: appID, productID: productID, currency: form["currency"] ?? "", amount: form["amount"] ?? "",
                makeDefault: form["default"] == "on")
            if let stripePrices {
                let taxCode = try context.currentApp.stripeTaxCode
                _ = await stripePrices.sync(billing, product: try await admin.product(appID: appID, id: productID), taxCode: taxCode)
            }
            return .productSaved
        }
    }

    @Sendable func removePrice(_ request: Request, context: ConsoleContext) async throws -> Response {
        let productID = try context.parameters.decoded("product_id")
        let currency = try context.parameters.decoded("currency")
        return try await write(request, context, .price(productID)) { _, appID, admin in
            _ = try await admin.removeProductPrice(appID: appID, productID: productID, currency: currency)
            return .productSaved
        }
    }

    @Sendable func setTrial(_ request: Request, context: ConsoleContext) async throws -> Response {
        let productID = try context.parameters.decoded("product_id")
        return try await write(request, context, .trial(productID)) { form, appID, admin in
            let text = (form["trial_days"] ?? "").trimmingCharacters(in: .whitespaces)
            guard text.isEmpty || Int(text) != nil else { throw ValidationError(field: "trial_days", reason: "must be a number of days, 0 for none") }
            _ = try await admin.setProductTrial(appID: appID, productID: productID, days: Int(text) ?? 0)
            return .productSaved
        }
    }

    @Sendable func products(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await page(context: context, error: nil, status: .ok, request: request)
    }

    @Sendable func createProduct(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await write(request, context, .newProduct) { form, appID, admin in
            let type = form["type"] ?? ""
            _ = try await admin.createProduct(
                appID: appID,
                ProductInput(
                    id: (form["id"] ?? "").trimmingCharacters(in: .whitespaces), type: type, period: type == "subscription" ? form["period"] : nil,
                    displayName: form["display_name"], entitlements: Self.list(form["entitlements"]), price: try Self.price(form),
                    storeIDs: Self.storeIDs(form)))
            return .productSaved
        }
    }

    @Sendable func updateProduct(_ request: Request, context: ConsoleContext) async throws -> Response {
        let productID = try context.parameters.decoded("product_id")
        return try await write(request, context, .product(productID)) { form, appID, admin in
            _ = try await admin.updateProduct(
                appID: appID, id: productID,
                ProductUpdate(
                    displayName: form["display_name"], entitlements: Self.list(form["entitlements"]), price: try Self.price(form),
                    storeIDs: Self.storeIDs(form)))
            return .productSaved
        }
    }

    @Sendable func createEntitlement(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await write(request, context, .entitlement) { form, appID, admin in
            _ = try await admin.createEntitlement(
                appID: appID, EntitlementInput(id: (form["id"] ?? "").trimmingCharacters(in: .whitespaces), displayName: form["display_name"]))
            return .entitlementSaved
        }
    }

    /// The page's forms, so a refused one opens again with what was typed.
    enum Form: Equatable {
        case newProduct
        case product(String)
        case entitlement
        case price(String)
        case trial(String)
    }

    /// An owner's catalog write, through the admin service acting as the operator: refused values and duplicates come
    /// back on the page, in the form they were typed in, naming what is wrong.
    func write(
        _ request: Request, _ context: ConsoleContext, _ which: Form,
        _ body: ([String: String], String, AdminService) async throws -> ConsoleNotice
    ) async throws -> Response {
        try await context.ownerWrite("change products", page: "products", describe: Self.describe) {
            _, error, status, _, form in
            try await page(context: context, error: error, status: status, request: request, typed: (form: which, values: form))
        } body: { form, appID, session in
            try await body(form, appID, admin.acting(as: session.actor))
        }
    }
}
