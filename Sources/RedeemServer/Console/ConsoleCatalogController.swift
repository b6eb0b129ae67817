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
            if let stripePrices { _ = await stripePrices.sync(billing, product: try await admin.product(appID: appID, id: productID)) }
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

    static let periods = ["P1W", "P1M", "P2M", "P3M", "P6M", "P1Y"]

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

    /// The store identifier fields, when the form has them; an empty one clears it. Core's
    /// `StoreProductIDs.validate(for:)` judges them when the product is validated.
    static func storeIDs(_ form: [String: String]) -> StoreProductIDs? {
        guard ["app_store_id", "play_store_id", "play_base_plan"].contains(where: { form[$0] != nil }) else { return nil }
        return StoreProductIDs(
            appStore: ConsoleOffersController.nonEmpty(form["app_store_id"]), playStore: ConsoleOffersController.nonEmpty(form["play_store_id"]),
            playBasePlan: ConsoleOffersController.nonEmpty(form["play_base_plan"]))
    }

    /// Refusals naming the field as the form labels it.
    static func describe(_ error: ValidationError) -> String {
        switch error.field {
        case "store_identifiers.app_store": "App Store product ID: \(error.reason)."
        case "store_identifiers.play_store": "Google Play product ID: \(error.reason)."
        case "store_identifiers.play_base_plan": "Google Play base plan: \(error.reason)."
        case "price.amount": "Amount: \(error.reason)."
        case "price.currency": "Currency: \(error.reason)."
        case "currency": "Currency: \(error.reason)."
        case "trial_days": "Free trial (days): \(error.reason)."
        default: ConsolePages.describe(error)
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

    func page(
        context: ConsoleContext, error: String?, status: HTTPResponse.Status, request: Request,
        typed: (form: Form, values: [String: String])? = nil
    ) async throws -> Response {
        let appID = try context.appID
        // A refused form shows what was typed; the others, what is stored.
        func typedValues(_ form: Form) -> [String: String]? { typed?.form == form ? typed?.values : nil }
        let links = ConsoleLinks.options(request)
        let catalog = try await admin.products(appID: appID)
        var billings: [String: ProductBilling] = [:]
        for product in catalog { billings[product.id] = try await admin.productBilling(appID: appID, productID: product.id) }
        let products = try catalog.map { product in
            let billing = billings[product.id] ?? ProductBilling(prices: [])
            let stored: [String: String] = [
                "display_name": product.displayName ?? "", "price_amount": product.price?.plainAmount ?? "",
                "price_currency": product.price?.currency ?? "", "entitlements": product.entitlements.joined(separator: ", "),
                "app_store_id": product.storeIDs.appStore ?? "", "play_store_id": product.storeIDs.playStore ?? "",
                "play_base_plan": product.storeIDs.playBasePlan ?? "",
            ]
            return ProductsPage.Product(
                id: product.id, type: product.type.rawValue.replacingOccurrences(of: "_", with: " "), price: PriceFormat.product(product),
                entitlements: product.entitlements.joined(separator: ", "), subscription: product.type == .subscription,
                stores: Self.stores(product.storeIDs, type: product.type), displayName: product.displayName,
                warning: product.price == nil
                    ? "No price: its purchase link cannot sell it (the API, the CLI and offer codes still can). Set one below." : nil,
                form: Self.fields(stored, typed: typedValues(.product(product.id))),
                pricing: Self.pricing(product, billing, typedPrice: typedValues(.price(product.id)), typedTrial: typedValues(.trial(product.id))),
                links: try ConsoleLinks.product(product, publicURL: publicURL, options: links.options, paidCheckout: paidCheckout))
        }
        let entitlements = try await admin.entitlements(appID: appID).map {
            ProductsPage.Entitlement(id: $0.id, displayName: $0.displayName)
        }
        let newProduct = typedValues(.newProduct)
        let values = ProductsPage(
            products: products, entitlements: entitlements, linkForm: links.form,
            periods: Self.periods.map { period in
                Choice(
                    value: period, label: OfferSummary.words(try! ISO8601Period(parsing: period), unitOnly: false),
                    selected: newProduct?["period"] == period)
            },
            types: ProductType.allCases.map { type in
                Choice(
                    value: type.rawValue, label: type.rawValue.replacingOccurrences(of: "_", with: " "),
                    selected: newProduct?["type"] == type.rawValue)
            },
            newProduct: Self.fields(
                Dictionary(uniqueKeysWithValues: Self.productFields.map { ($0, $0 == "price_currency" ? "USD" : "") }), typed: newProduct),
            newEntitlement: Self.fields(["id": "", "display_name": ""], typed: typedValues(.entitlement)),
            error: error ?? links.error, notice: ConsolePages.notice(request))
        return pages.page("console-products", status: status, context: context, values)
    }

    static let productFields = [
        "id", "display_name", "price_amount", "price_currency", "entitlements", "app_store_id", "play_store_id", "play_base_plan",
    ]

    /// A form's values: what was typed when it was refused (and then it opens), else what is stored.
    static func fields(_ stored: [String: String], typed: [String: String]?) -> FormFields {
        guard let typed else { return FormFields(values: stored) }
        var values = stored
        for (name, value) in typed where stored[name] != nil { values[name] = value }
        return FormFields(values: values, open: true)
    }

    /// Where the stores' SDKs find the product, in words.
    static func stores(_ ids: StoreProductIDs, type: ProductType) -> [String] {
        var stores: [String] = []
        if let id = ids.appStore { stores.append("App Store: \(id)") }
        if let id = ids.playStore {
            stores.append("Google Play: \(id)" + (type == .subscription ? ids.playBasePlan.map { " (base plan \($0))" } ?? "" : ""))
        }
        return stores
    }

    /// A product's prices per currency and its trial, with their forms (as typed when refused).
    static func pricing(
        _ product: Product, _ billing: ProductBilling, typedPrice: [String: String]?, typedTrial: [String: String]?
    ) -> ProductsPage.Pricing {
        ProductsPage.Pricing(
            prices: billing.prices.map {
                ProductsPage.PriceRow(
                    currency: $0.currency, amount: PriceFormat.string($0.price), isDefault: $0.isDefault, stripePriceID: $0.stripePriceID)
            },
            trial: billing.trialDays.map { "\($0)-day free trial" },
            subscription: product.type == .subscription,
            priceForm: fields(["currency": "", "amount": ""], typed: typedPrice),
            trialForm: fields(["trial_days": billing.trialDays.map(String.init) ?? "0"], typed: typedTrial))
    }
}
