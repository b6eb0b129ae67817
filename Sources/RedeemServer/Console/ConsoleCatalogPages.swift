/// The catalogue pages' models: products and entitlements, offerings and one offering.
struct ProductsPage: PageModel {
    struct Product: Sendable {
        let id: String
        let type: String
        let price: String
        let entitlements: String
        let subscription: Bool
        let stores: [String]
        let displayName: String?
        let warning: String?
        /// The product's edit form, as stored or as typed when refused.
        let form: FormFields
        /// Its prices per currency and its trial, with their forms.
        let pricing: Pricing
        /// Its production and sandbox purchase links, for the link form's app user and UTM values.
        let links: [ConsoleLink]
    }

    /// A product's prices per currency and its free trial, with their forms.
    struct Pricing: Sendable {
        let prices: [PriceRow]
        let trial: String?
        let subscription: Bool
        let priceForm: FormFields
        let trialForm: FormFields
    }

    struct PriceRow: Sendable {
        let currency: String
        let amount: String
        let isDefault: Bool
        let stripePriceID: String?
    }

    struct Entitlement: Sendable {
        let id: String
        let displayName: String?
    }

    let products: [Product]
    let entitlements: [Entitlement]
    /// The link form's values (`app_user_id`, `utm_*`); open when any was given.
    let linkForm: FormFields
    let periods: [Choice]
    let types: [Choice]
    let newProduct: FormFields
    let newEntitlement: FormFields
    let error: String?
    let notice: String?
}

struct OfferingsPage: PageModel {
    let offerings: [OfferingRow]
    let form: OfferingFormModel
    let noProducts: Bool
    let error: String?
    let notice: String?
}

struct OfferingPage: PageModel {
    let offering: OfferingRow
    let form: OfferingFormModel
    let error: String?
}

/// An offering as listed: its packages with each store's product, and what each store's SDK is shown.
struct OfferingRow: Sendable {
    struct Package: Sendable {
        let id: String
        let product: String
        let appStore: String?
        let playStore: String?
    }

    let id: String
    let isCurrent: Bool
    let packages: [Package]
    let stores: [String]
    let description: String?
    let metadata: String?
    /// "Chosen for 3 customers as their current offering", when it was (RevenueCat's offering override).
    let chosenFor: String?
}

/// The offering form: its fields and package rows; `fixed` when the identifier cannot change (editing).
struct OfferingFormModel: Sendable {
    struct ProductChoice: Sendable {
        let id: String
        let selected: Bool
    }

    struct Row: Sendable {
        let index: Int
        let number: Int
        let custom: String
        let noProduct: Bool
        let choices: [Choice]
        let products: [ProductChoice]
    }

    let identifier: String
    let description: String
    let metadata: String
    let isCurrent: Bool
    let rows: [Row]
    let action: String
    let submit: String
    var open = false
    var fixed = false
}
