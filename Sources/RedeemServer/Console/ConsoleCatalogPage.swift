import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// The products page's values: each product with its forms (as stored, or as typed when refused), its prices, trial
/// and purchase links, and the forms for a new product and entitlement.
extension ConsoleCatalogController {
    static let periods = ["P1W", "P1M", "P2M", "P3M", "P6M", "P1Y"]

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
