import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer

/// What `products create` and `products update` both set.
struct ProductFields: ParsableArguments {
    @Option(help: "The name buyers see; on update an empty value clears it.")
    var displayName: String?
    @Option(help: "An entitlement the product unlocks (created if new); repeat for several. On update they replace the current ones.")
    var entitlement: [String] = []
    @Option(help: "Checkout price, e.g. 4.99 (with --currency).")
    var price: String?
    @Option(help: "ISO-4217 currency of --price, e.g. USD.")
    var currency: String?
    @Option(
        help: "Subscriptions: the subscription group it ranks in (offers and upgrades are judged per group); on update an empty value takes it out.")
    var subscriptionGroup: String?
    @Option(help: "Subscriptions: its level in the group, 1 the highest.")
    var groupLevel: Int?
    @Option(help: "Its App Store product ID, which RevenueCat's SDKs see in offerings on Apple platforms; on update an empty value clears it.")
    var appStoreID: String?
    @Option(help: "Its Google Play product ID; on update an empty value clears it.")
    var playStoreID: String?
    @Option(help: "A Google Play subscription's base plan (required with --play-store-id for a subscription).")
    var playBasePlan: String?

    /// The store identifiers these options give over `current`; nil when none is given.
    func storeIDs(over current: StoreProductIDs = StoreProductIDs()) -> StoreProductIDs? {
        guard appStoreID != nil || playStoreID != nil || playBasePlan != nil else { return nil }
        let given = { (value: String?, old: String?) in value.map { $0.isEmpty ? nil : $0 } ?? old }
        return StoreProductIDs(
            appStore: given(appStoreID, current.appStore), playStore: given(playStoreID, current.playStore),
            playBasePlan: given(playBasePlan, current.playBasePlan))
    }

    var priceInput: PriceInput? {
        get throws { try price.map { try PriceInput(amount: $0, currency: currency ?? "USD") } }
    }
}

struct Products: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, change and list products.", subcommands: [Create.self, Update.self, List.self, Prices.self, Trial.self])

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a product's name, entitlements, price or group.")
        @OptionGroup var app: AppOption
        @Option var id: String
        @OptionGroup var fields: ProductFields
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            var update = ProductUpdate(
                displayName: fields.displayName, entitlements: fields.entitlement.isEmpty ? nil : fields.entitlement,
                price: try fields.priceInput, subscriptionGroup: fields.subscriptionGroup, groupLevel: fields.groupLevel)
            // A store identifier given alone changes only itself: the others are read first.
            let product = try await target.run(
                local: { admin in
                    if fields.storeIDs() != nil {
                        update.storeIDs = fields.storeIDs(over: try await admin.product(appID: appID, id: id).storeIDs)
                    }
                    return try await admin.updateProduct(appID: appID, id: id, update)
                },
                remote: { admin in
                    let path = Operations.GetProduct.Input.Path(appId: appID, productId: id)
                    if fields.storeIDs() != nil {
                        update.storeIDs = fields.storeIDs(over: try await admin.call { try await $0.getProduct(path: path) }.ok.body.json.storeIDs)
                    }
                    let body = update
                    return try await admin.call { try await $0.updateProduct(path: .init(appId: appID, productId: id), body: .json(body)) }.ok.body
                        .json
                }
            )
            if json { return try Output.json(product) }
            print("Updated product \(product.id): \(PriceFormat.product(product)), unlocks \(product.entitlements.joined(separator: ", ")).")
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a product and attach entitlements to it.")
        @OptionGroup var app: AppOption
        @Option var id: String
        @Option(help: "subscription, consumable or non_consumable")
        var type: String
        @Option(help: "ISO-8601 period for subscriptions: P1W, P1M, P1Y…")
        var period: String?
        @OptionGroup var fields: ProductFields
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let input = ProductInput(
                id: id, type: type, period: period, displayName: fields.displayName, entitlements: fields.entitlement,
                price: try fields.priceInput, subscriptionGroup: fields.subscriptionGroup, groupLevel: fields.groupLevel,
                storeIDs: fields.storeIDs())
            let product = try await target.run(
                local: { try await $0.createProduct(appID: appID, input) },
                remote: { admin in
                    try await admin.call { try await $0.createProduct(path: .init(appId: appID), body: .json(input)) }.created.body.json
                }
            )
            if json { return try Output.json(product) }
            print(
                "Created product \(product.id) (\(product.type.rawValue), \(PriceFormat.product(product))) unlocking \(product.entitlements.isEmpty ? "no entitlement" : product.entitlements.joined(separator: ", "))."
            )
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an app's products with their prices.")
        @OptionGroup var app: AppOption
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let products = try await target.run(
                local: { try await $0.products(appID: appID) },
                remote: { admin in try await admin.call { try await $0.listProducts(path: .init(appId: appID)) }.ok.body.json.products }
            )
            if json { return try Output.json(Schemas.ProductList(products: products)) }
            for p in products {
                print(
                    "\(p.id)  \(p.type.rawValue)  \(PriceFormat.product(p))  unlocks: \(p.entitlements.isEmpty ? "-" : p.entitlements.joined(separator: ","))"
                )
            }
        }
    }
}

struct Entitlements: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, rename and list entitlements.", subcommands: [Create.self, Update.self, List.self])

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change an entitlement's display name.")
        @OptionGroup var app: AppOption
        @Option var id: String
        @Option(help: "An empty value clears it.")
        var displayName: String
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let entitlement = try await target.run(
                local: { try await $0.updateEntitlement(appID: appID, id: id, displayName: displayName) },
                remote: { admin in
                    let path = Operations.UpdateEntitlement.Input.Path(appId: appID, entitlementId: id)
                    return try await admin.call { try await $0.updateEntitlement(path: path, body: .json(.init(displayName: displayName))) }.ok.body
                        .json
                }
            )
            if json { return try Output.json(entitlement) }
            print("Updated entitlement \(entitlement.id).")
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an entitlement.")
        @OptionGroup var app: AppOption
        @Option var id: String
        @Option var displayName: String?
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let input = EntitlementInput(id: id, displayName: displayName)
            let entitlement = try await target.run(
                local: { try await $0.createEntitlement(appID: appID, input) },
                remote: { admin in
                    try await admin.call { try await $0.createEntitlement(path: .init(appId: appID), body: .json(input)) }.created.body.json
                }
            )
            if json { return try Output.json(entitlement) }
            print("Created entitlement \(entitlement.id).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an app's entitlements.")
        @OptionGroup var app: AppOption
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let entitlements = try await target.run(
                local: { try await $0.entitlements(appID: appID) },
                remote: { admin in try await admin.call { try await $0.listEntitlements(path: .init(appId: appID)) }.ok.body.json.entitlements }
            )
            if json { return try Output.json(Schemas.EntitlementList(entitlements: entitlements)) }
            for e in entitlements { print("\(e.id)  \(e.displayName ?? "")") }
        }
    }
}

struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list and revoke API keys.", subcommands: [Create.self, List.self, Revoke.self]
    )

    /// A key as created: the stored record and the plaintext, shown once.
    static func created(_ created: CreatedKey) -> Schemas.CreatedKey { .init(value1: created.key, value2: .init(key: created.plaintext)) }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a key for an app, or with --admin an instance admin key.")
        @OptionGroup var app: AppOption
        @Option(help: "public_sandbox, public_production or secret")
        var kind: String?
        @Flag(help: "An instance-wide admin key, which can also create apps (local database only).")
        var admin = false
        @Option(help: "What the key is for, e.g. 'iOS app' or 'billing server' (shown in lists).")
        var label: String?
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func validate() throws {
            if admin, app.optionalID != nil || kind != nil { throw ValidationError("--admin takes neither --app nor --kind") }
            if !admin, kind == nil { throw ValidationError("give --app and --kind, or --admin") }
        }

        func run() async throws {
            if admin { try target.localOnly("keys create --admin") }
            let appID = admin ? nil : try app.id
            let created = try await target.run(
                local: { Keys.created(try await $0.createKey(appID: appID, kind: kind ?? "admin", label: label)) },
                remote: { admin in
                    guard let kind = Schemas.KeyRequest.KindPayload(rawValue: kind ?? "") else {
                        throw ValidationError(field: "--kind", reason: "must be public_sandbox, public_production or secret")
                    }
                    let path = Operations.CreateKey.Input.Path(appId: appID ?? "")
                    return try await admin.call { try await $0.createKey(path: path, body: .json(.init(kind: kind, label: label))) }.created.body.json
                }
            )
            if json { return try Output.json(created) }
            print("Created \(created.value1.kind.rawValue) key \(created.value1.id):\n  \(created.value2.key)\nIt is shown only now.")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys (never their plaintext).")
        @OptionGroup var app: AppOption
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = app.optionalID
            let keys = try await target.run(
                local: { try await $0.keys(appID: appID) },
                remote: { admin in
                    let appID = try app.id
                    return try await admin.call { try await $0.listKeys(path: .init(appId: appID)) }.ok.body.json.keys
                }
            )
            if json { return try Output.json(Schemas.KeyList(keys: keys)) }
            for k in keys {
                print("\(k.id)  \(k.kind.rawValue)  \(k.displayPrefix)…  \(k.revokedAt == nil ? "active" : "revoked")  \(k.label ?? "")")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key.")
        @Argument(help: "The key's ID (key_…).")
        var id: String
        @OptionGroup var app: AppOption
        @OptionGroup var target: AdminTarget

        func run() async throws {
            let appID = app.optionalID
            try await target.run(
                local: { try await $0.revokeKey(id: id, appID: appID) },
                remote: { admin in
                    let path = Operations.RevokeKey.Input.Path(appId: try app.id, keyId: id)
                    _ = try await admin.call { try await $0.revokeKey(path: path) }
                }
            )
            print("Revoked \(id).")
        }
    }
}

extension Products {
    /// `redeem products prices list|add|remove`: a product's prices per currency.
    struct Prices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A product's prices, one per currency (buyers pick with ?currency=, or by their browser's region).",
            subcommands: [ListPrices.self, Add.self, Remove.self])
    }

    static func show(_ view: ProductPricingView, json: Bool) throws {
        if json { return try Output.json(view) }
        for row in view.prices {
            print("\(row.currency)  \(row.amount)\(row.isDefault ? "  (default)" : "")\(row.stripePriceID.map { "  \($0)" } ?? "")")
        }
        print("Free trial: \(view.trialDays.map { "\($0) days" } ?? "none")")
    }

    struct ListPrices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List a product's prices and its trial.")
        @OptionGroup var app: AppOption
        @Option var id: String
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let view = try await target.run(
                local: { ProductPricingView(productID: id, try await $0.productBilling(appID: appID, productID: id)) },
                remote: { admin in try await admin.call { try await $0.getProductPrices(path: .init(appId: appID, productId: id)) }.ok.body.json })
            try Products.show(view, json: json)
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add or change the price in a currency, e.g. --currency EUR --amount 4.49 (--default makes it the product's price).")
        @OptionGroup var app: AppOption
        @Option var id: String
        @Option(help: "ISO 4217 code, e.g. EUR.") var currency: String
        @Option(help: "Decimal amount with the currency's decimals, e.g. 4.49 or 700 (JPY).") var amount: String
        @Flag(name: .customLong("default"), help: "Make it the product's default price.") var makeDefault = false
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let view = try await target.run(
                local: {
                    let billing = try await $0.setProductPrice(
                        appID: appID, productID: id, currency: currency, amount: amount, makeDefault: makeDefault)
                    return ProductPricingView(productID: id, billing)
                },
                remote: { admin in
                    let path = Operations.SetProductPrice.Input.Path(appId: appID, productId: id, currency: currency)
                    return try await admin.call {
                        try await $0.setProductPrice(path: path, body: .json(.init(amount: amount, _default: makeDefault)))
                    }
                    .ok.body.json
                })
            try Products.show(view, json: json)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove the price in a currency (not the default).")
        @OptionGroup var app: AppOption
        @Option var id: String
        @Option var currency: String
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let view = try await target.run(
                local: { ProductPricingView(productID: id, try await $0.removeProductPrice(appID: appID, productID: id, currency: currency)) },
                remote: { admin in
                    let path = Operations.RemoveProductPrice.Input.Path(appId: appID, productId: id, currency: currency)
                    return try await admin.call { try await $0.removeProductPrice(path: path) }.ok.body.json
                })
            try Products.show(view, json: json)
        }
    }

    struct Trial: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a subscription's free trial for web buyers, in days (0 removes it); one trial per buyer and product.")
        @OptionGroup var app: AppOption
        @Option var id: String
        @Option(help: "1–365 days; 0 removes the trial.") var days: Int
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let view = try await target.run(
                local: { ProductPricingView(productID: id, try await $0.setProductTrial(appID: appID, productID: id, days: days)) },
                remote: { admin in
                    let path = Operations.SetProductTrial.Input.Path(appId: appID, productId: id)
                    return try await admin.call { try await $0.setProductTrial(path: path, body: .json(.init(trialDays: days))) }.ok.body.json
                })
            try Products.show(view, json: json)
        }
    }
}
