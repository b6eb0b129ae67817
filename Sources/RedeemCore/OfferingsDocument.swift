/// RevenueCat's `GET /v1/subscribers/{id}/offerings` and `GET /v1/product_entitlement_mapping` bodies, as its SDKs decode
/// them (purchases-ios `OfferingsResponse`, purchases-android `OfferingParser`): each store sees its own product IDs.
/// Optional keys are left out, never null: Android reads a JSON null as the string "null" and then matches no product.
public enum OfferingsDocument {
    /// Packages whose product has no identifier on `platform` are left out, then offerings left with none;
    /// `current_offering_id` is always there, null when no current offering is. `override`: the offering the app's
    /// backend chose for this user (RevenueCat's offering override), current instead of the app's own where it is shown.
    /// `checkoutURL` is a product's purchase link on the web (`web_checkout_url`), nil when it is not sold there.
    public static func offerings(
        _ offerings: [Offering], products: [String: Product], platform: StorePlatform, override: String? = nil,
        checkoutURL: (Product) -> String?
    ) -> [UInt8] {
        var shown: [(Offering, [(Offering.Package, Product, String, String?)])] = []
        for offering in offerings {
            let packages = offering.packages.compactMap { package -> (Offering.Package, Product, String, String?)? in
                guard let product = products[package.productID], let (id, plan) = identifiers(product, on: platform) else { return nil }
                return (package, product, id, plan)
            }
            if !packages.isEmpty { shown.append((offering, packages)) }
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("current_offering_id")
        let current = shown.first { $0.0.id == override } ?? shown.first { $0.0.isCurrent }
        writer.string(current?.0.id)
        writer.key("offerings")
        writer.beginArray()
        for (offering, packages) in shown {
            writer.beginObject()
            writer.field("description", offering.description)
            writer.field("identifier", offering.id)
            writer.key("metadata")
            writer.json(offering.metadataJSON)
            writer.key("packages")
            writer.beginArray()
            for (package, product, id, plan) in packages {
                writer.beginObject()
                writer.field("identifier", package.id)
                writer.field("platform_product_identifier", id)
                if let plan { writer.field("platform_product_plan_identifier", plan) }
                if let url = checkoutURL(product) { writer.field("web_checkout_url", url) }
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// Every store product of the app with the entitlements it unlocks, keyed as RevenueCat keys them (`product`, or
    /// `product:base_plan` for Play subscriptions); the SDKs use it to grant store purchases while the server is down.
    public static func productEntitlementMapping(_ products: [Product]) -> [UInt8] {
        var entries: [(key: String, product: String, basePlan: String?, entitlements: [String])] = []
        for product in products {
            for platform in [StorePlatform.appStore, .playStore] {
                guard let (id, plan) = identifiers(product, on: platform), let key = storeKey(product, on: platform) else { continue }
                entries.append((key, id, plan, product.entitlements))
            }
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("product_entitlement_mapping")
        writer.beginObject()
        var seen = Set<String>()
        for entry in entries.sorted(by: { JSONWriter.precedes($0.key, $1.key) }) where seen.insert(entry.key).inserted {
            writer.key(entry.key)
            writer.beginObject()
            if let plan = entry.basePlan { writer.field("base_plan_id", plan) }
            writer.field("entitlements", entry.entitlements.sorted())
            writer.field("product_identifier", entry.product)
            writer.endObject()
        }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// Whether `platform`'s SDK is shown `offering` at all: some package's product has an identifier there.
    public static func isShown(_ offering: Offering, products: [String: Product], on platform: StorePlatform) -> Bool {
        offering.packages.contains { package in products[package.productID].flatMap { identifiers($0, on: platform) } != nil }
    }

    /// The product as `platform`'s SDK names it, keyed as RevenueCat keys store products: its identifier there, or
    /// `identifier:base_plan` for a Play subscription; nil when it has none there (that SDK is not shown it).
    public static func storeKey(_ product: Product, on platform: StorePlatform) -> String? {
        identifiers(product, on: platform).map { id, plan in plan.map { "\(id):\($0)" } ?? id }
    }

    /// The product's identifier, and Play's base plan for a subscription, on `platform`; nil when it has none there.
    static func identifiers(_ product: Product, on platform: StorePlatform) -> (String, String?)? {
        switch platform {
        case .appStore: product.storeIDs.appStore.map { ($0, nil) }
        case .playStore:
            product.storeIDs.playStore.map { ($0, product.type == .subscription ? product.storeIDs.playBasePlan : nil) }
        case .web: (product.id, nil)
        }
    }
}
