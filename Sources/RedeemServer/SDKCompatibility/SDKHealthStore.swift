import RedeemCore

/// What the SDK health report reads: the app's settings and its catalog.
protocol SDKHealthStore: Sendable {
    func app(id: String) async throws -> App
    func catalog(appID: String) async throws -> (offerings: [Offering], products: [Product])
}
