import RedeemCore

/// What the Customer Center's configuration reads: the app's settings.
protocol CustomerCenterStore: Sendable {
    func app(id: String) async throws -> App
}
