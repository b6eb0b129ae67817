import RedeemCore

/// The iOS SDK's health report for an app: its bundle ID and catalog read, judged by Core's `SDKHealthReport`.
struct SDKHealthReportService: Sendable {
    let store: any SDKHealthStore

    /// `sdkBundleID`: what the SDK sent as `X-Client-Bundle-ID`.
    func report(appID: String, sdkBundleID: String?) async throws -> SDKHealthReport {
        let app = try await store.app(id: appID)
        let catalog = try await store.catalog(appID: appID)
        return SDKHealthReport(offerings: catalog.offerings, products: catalog.products, appBundleID: app.iosBundleID, sdkBundleID: sdkBundleID)
    }
}
