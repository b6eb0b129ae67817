import RedeemCore

/// The apps whose universal-link and app-link files are served.
protocol UniversalLinkStore: Sendable {
    func apps() async throws -> [App]
}
