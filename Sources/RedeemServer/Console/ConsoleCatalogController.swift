import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `/console/apps/{app_id}/products`: products (prices and periods in words) and entitlements. Any operator reads;
/// owners create and edit, through `AdminService` (validated and audited there, as from the admin API and the CLI).
struct ConsoleCatalogController {
    let console: ConsoleController
    let admin: AdminService

    func addRoutes(to parent: Router<AppRequestContext>) {
        let router = parent.group().add(middleware: ConsoleRedirectMiddleware())
        router.get("/console/apps/{app_id}/products", use: products)
        router.post("/console/apps/{app_id}/products", use: createProduct)
        router.post("/console/apps/{app_id}/products/{product_id}", use: updateProduct)
        router.post("/console/apps/{app_id}/entitlements", use: createEntitlement)
    }

    static let periods = ["P1W", "P1M", "P2M", "P3M", "P6M", "P1Y"]

    @Sendable func products(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let session = try await console.session(request) else { return ConsoleController.redirect("/console/sign-in") }
        return try await page(appID: try context.parameters.decoded("app_id"), error: nil, status: .ok, request: request, session: session)
    }

    @Sendable func createProduct(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await write(request, context) { form, appID, admin in
            let type = form["type"] ?? ""
            _ = try await admin.createProduct(
                appID: appID,
                ProductInput(
                    id: (form["id"] ?? "").trimmingCharacters(in: .whitespaces), type: type, period: type == "subscription" ? form["period"] : nil,
                    displayName: form["display_name"], entitlements: Self.list(form["entitlements"]), price: try Self.price(form)))
            return .productSaved
        }
    }

    @Sendable func updateProduct(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await write(request, context) { form, appID, admin in
            _ = try await admin.updateProduct(
                appID: appID, id: try context.parameters.decoded("product_id"),
                ProductUpdate(displayName: form["display_name"], entitlements: Self.list(form["entitlements"]), price: try Self.price(form)))
            return .productSaved
        }
    }

    @Sendable func createEntitlement(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await write(request, context) { form, appID, admin in
            _ = try await admin.createEntitlement(
                appID: appID, EntitlementInput(id: (form["id"] ?? "").trimmingCharacters(in: .whitespaces), displayName: form["display_name"]))
            return .entitlementSaved
        }
    }

    /// An owner's catalog write, through the admin service acting as the operator: refused values and duplicates come
    /// back on the page, naming what is wrong.
    func write(
        _ request: Request, _ context: AppRequestContext, _ body: ([String: String], String, AdminService) async throws -> ConsoleNotice
    ) async throws -> Response {
        try await console.ownerWrite(request, context, "change products", page: "products") { appID, error, status, session in
            try await page(appID: appID, error: error, status: status, request: request, session: session)
        } body: { form, appID, session in
            try await body(form, appID, admin.acting(as: session.actor))
        }
    }

    /// Comma- or space-separated IDs; nil when the field was not sent.
    static func list(_ text: String?) -> [String]? {
        text.map { $0.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init) }
    }

    /// The price fields, or nil when no amount was given.
    static func price(_ form: [String: String]) throws -> PriceInput? {
        guard let amount = form["price_amount"]?.trimmingCharacters(in: .whitespaces), !amount.isEmpty else { return nil }
        let currency = (form["price_currency"] ?? "USD").trimmingCharacters(in: .whitespaces).uppercased()
        do {
            return try PriceInput(amount: amount, currency: currency)
        } catch {
            throw ValidationError(field: "price", reason: "must be an amount such as 4.99 and a currency such as USD")
        }
    }

    func page(appID: String, error: String?, status: HTTPResponse.Status, request: Request, session: ConsoleSession) async throws -> Response {
        let app = try await console.service.store.app(id: appID)
        let products = try await admin.store.products(appID: appID).map { product -> [String: Any] in
            var values: [String: Any] = [
                "id": product.id, "type": product.type.rawValue.replacingOccurrences(of: "_", with: " "),
                "price": PriceFormat.product(product), "entitlements": product.entitlements.joined(separator: ", "),
            ]
            // Absent rather than empty: the template shows a name only when there is one.
            if let name = product.displayName { values["displayName"] = name }
            if let price = product.price {
                values["amount"] = price.plainAmount
                values["currency"] = price.currency
            }
            return values
        }
        let entitlements = try await admin.store.entitlements(appID: appID).map { entitlement -> [String: Any] in
            var values: [String: Any] = ["id": entitlement.id]
            if let name = entitlement.displayName { values["displayName"] = name }
            return values
        }
        var values: [String: Any] = [
            "products": products, "entitlements": entitlements,
            "periods": Self.periods.map { ["value": $0, "label": OfferSummary.words(try! ISO8601Period(parsing: $0), unitOnly: false)] },
        ]
        if let error { values["error"] = error }
        if let notice = console.notice(request) { values["notice"] = notice }
        return try await console.page("console-products", status: status, request: request, session: session, app: app, values)
    }
}
