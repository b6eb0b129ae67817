import Foundation
import RedeemCore
import Testing

/// The SDK health report's rules (`SDKHealthReport`): which check fails or warns, judged from the catalog as the iOS SDK
/// will see it.
@Suite struct SDKHealthReportTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    static func product(_ id: String, appStore: String?) -> Product {
        Product(
            appID: "app_1", id: id, type: .subscription, period: "P1M", displayName: nil, entitlements: ["pro"],
            storeIDs: StoreProductIDs(appStore: appStore), createdAt: now)
    }

    static func offering(_ id: String, current: Bool = false, _ products: String...) -> Offering {
        Offering(
            appID: "app_1", id: id, description: id, isCurrent: current, packages: products.map { .init(id: "p_" + $0, productID: $0) },
            createdAt: now)
    }

    static let products = [product("store", appStore: "app.store"), product("web", appStore: nil)]

    static func statuses(_ report: SDKHealthReport) -> [String: SDKHealthReport.Status] {
        Dictionary(uniqueKeysWithValues: report.checks.map { ($0.name.rawValue, $0.status) })
    }

    @Test func offeringsAreJudgedByWhatTheIOSSDKSees() {
        // Every package seen: passed. Some left out: a warning. A non-current offering left with none: a warning too.
        let fine = SDKHealthReport(
            offerings: [Self.offering("main", current: true, "store")], products: Self.products, appBundleID: nil, sdkBundleID: nil)
        #expect(fine.status == .passed && Self.statuses(fine)["offerings_products"] == .passed)
        let mixed = SDKHealthReport(
            offerings: [Self.offering("main", current: true, "store", "web"), Self.offering("side", "web")], products: Self.products,
            appBundleID: nil, sdkBundleID: nil)
        #expect(mixed.status == .warning && mixed.checks.last?.offerings?.map(\.status) == [.warning, .failed])
        // The current offering left with none fails, as does an app with no offering; an unknown product is left out too.
        let empty = SDKHealthReport(
            offerings: [Self.offering("main", current: true, "web", "gone")], products: Self.products, appBundleID: nil, sdkBundleID: nil)
        #expect(empty.status == .failed && Self.statuses(empty)["offerings_products"] == .failed)
        let none = SDKHealthReport(offerings: [], products: Self.products, appBundleID: nil, sdkBundleID: nil)
        #expect(Self.statuses(none) == ["api_key": .passed, "products": .passed, "offerings": .failed, "offerings_products": .passed])
        #expect(none.checks.first { $0.name == .products }?.products?.map(\.identifier) == ["app.store"])
    }

    @Test func bundleIDsAreComparedOnlyWhenBothAreKnown() {
        let offerings = [Self.offering("main", current: true, "store")]
        let check = { (app: String?, sdk: String?) in
            SDKHealthReport(offerings: offerings, products: Self.products, appBundleID: app, sdkBundleID: sdk).checks.first { $0.name == .bundleID }
        }
        #expect(check("a.b", "a.b")?.status == .passed)
        #expect(
            check("a.b", "a.c")?.status == .failed && check("a.b", "a.c")?.bundleIDs?.sdk == "a.c" && check("a.b", "a.c")?.bundleIDs?.app == "a.b")
        #expect(check(nil, "a.b") == nil && check("a.b", nil) == nil && check("", "a.b") == nil)
    }
}
