/// RevenueCat's SDK health report (`GET /v1/subscribers/{id}/health_report`), which the iOS SDK's debug builds fetch for
/// `PurchasesDiagnostics.healthReport()` and its debug overlay: the app's catalog judged as the iOS SDK will see it.
/// Redeem reads no App Store Connect, so no product's store status is known; what it can tell is which packages the
/// SDK leaves out (a product without an App Store product ID) and whether the app's bundle ID matches the SDK's.
/// The SDK reports the first failed check as the configuration's error and the warnings beside a healthy one.
public struct SDKHealthReport: Equatable, Sendable {
    public enum Status: String, Comparable, Sendable {
        case passed, warning, failed

        public static func < (lhs: Status, rhs: Status) -> Bool { lhs.rank < rhs.rank }
        private var rank: Int { self == .passed ? 0 : self == .warning ? 1 : 2 }
    }

    /// A product by its App Store ID, and what the developer should know of it.
    public struct ProductItem: Equatable, Sendable {
        public let identifier: String
        public let title: String?
        public let description: String
    }

    /// A package, with its product's App Store ID (its Redeem ID when it has none) and name.
    public struct PackageItem: Equatable, Sendable {
        public let identifier: String
        public let productIdentifier: String
        public let productTitle: String?
        public let description: String
    }

    public struct BundleIDs: Equatable, Sendable {
        public let sdk: String
        public let app: String
    }

    public struct OfferingItem: Equatable, Sendable {
        public let identifier: String
        public let status: Status
        public let packages: [PackageItem]
    }

    public struct Check: Equatable, Sendable {
        public enum Name: String, Sendable {
            case apiKey = "api_key"
            case bundleID = "bundle_id"
            case products
            case offerings
            case offeringsProducts = "offerings_products"
        }

        public let name: Name
        public let status: Status
        /// `bundle_id`: the SDK's and the app's.
        public var bundleIDs: BundleIDs? = nil
        /// `products`.
        public var products: [ProductItem]? = nil
        /// `offerings_products`.
        public var offerings: [OfferingItem]? = nil
    }

    /// In the order the SDK reads them: the first failed one is the error it reports.
    public let checks: [Check]

    /// The worst of the checks'.
    public var status: Status { checks.map(\.status).max() ?? .passed }

    /// The request's key was accepted, so `api_key` passes. `bundle_id` is checked only when both IDs are known.
    public init(offerings: [Offering], products: [Product], appBundleID: String?, sdkBundleID: String?) {
        var checks = [Check(name: .apiKey, status: .passed)]
        if let app = appBundleID, let sdk = sdkBundleID, !app.isEmpty, !sdk.isEmpty {
            checks.append(Check(name: .bundleID, status: app == sdk ? .passed : .failed, bundleIDs: BundleIDs(sdk: sdk, app: app)))
        }
        let byID = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        // The App Store products, as the offerings document names them to the iOS SDK.
        let storeProducts = products.compactMap { product in Self.storeID(product).map { (id: $0, product: product) } }.sorted { $0.id < $1.id }
        checks.append(
            Check(
                name: .products, status: .passed,
                products: storeProducts.map {
                    ProductItem(identifier: $0.id, title: $0.product.displayName, description: Self.description($0.product))
                }))
        checks.append(Check(name: .offerings, status: offerings.isEmpty ? .failed : .passed))
        let judged = offerings.map { Self.offering($0, products: byID) }
        // Without its current offering the SDK has none to show; another offering left empty is a warning.
        let current = zip(offerings, judged).first { $0.0.isCurrent }?.1
        let status: Status = current?.status == .failed ? .failed : judged.contains { $0.status != .passed } ? .warning : .passed
        checks.append(Check(name: .offeringsProducts, status: status, offerings: judged))
        self.checks = checks
    }

    /// The product's ID on the App Store, nil when the iOS SDK is not shown it: `OfferingsDocument`'s rule, not a copy.
    private static func storeID(_ product: Product) -> String? { OfferingsDocument.identifiers(product, on: .appStore)?.0 }

    private static func description(_ product: Product) -> String {
        let unlocks =
            product.entitlements.isEmpty ? "which unlocks no entitlement" : "which unlocks " + product.entitlements.sorted().joined(separator: ", ")
        return "Redeem does not read App Store Connect, so StoreKit decides whether this product can be bought. In Redeem it is "
            + "'\(product.id)', \(unlocks)."
    }

    /// Passed when the SDK sees every package, a warning when it leaves some out, failed when it leaves the offering out.
    private static func offering(_ offering: Offering, products: [String: Product]) -> OfferingItem {
        let packages = offering.packages.map { package -> (PackageItem, seen: Bool) in
            guard let product = products[package.productID], let storeID = storeID(product) else {
                let item = PackageItem(
                    identifier: package.id, productIdentifier: package.productID, productTitle: products[package.productID]?.displayName,
                    description: "The iOS SDK leaves this package out: its product '\(package.productID)' has no App Store product ID "
                        + "in Redeem. Give it one on the console's Products page, or sell it on the web only.")
                return (item, false)
            }
            let item = PackageItem(
                identifier: package.id, productIdentifier: storeID, productTitle: product.displayName, description: description(product))
            return (item, true)
        }
        let seen = packages.filter(\.seen).count
        let status: Status = seen == packages.count && seen > 0 ? .passed : seen > 0 ? .warning : .failed
        return OfferingItem(identifier: offering.id, status: status, packages: packages.map(\.0))
    }
}
