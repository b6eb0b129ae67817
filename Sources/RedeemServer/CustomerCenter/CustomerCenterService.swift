import Foundation
import RedeemCore

/// RevenueCatUI's Customer Center for an app that sells on the web. Its paths lead to the app's portal, where a web
/// buyer cancels, resumes, reads receipts or finds a purchase by e-mail address; the App Store paths (refunds, plan
/// changes, restores) would lead nowhere here, so there are none. The same for every user of the app: the SDKs pick
/// the screen and filter the paths by the CustomerInfo they hold.
struct CustomerCenterService: Sendable {
    let store: any CustomerCenterStore
    let publicURL: URL
    /// The portal signs buyers in with an e-mailed link: without e-mail it cannot, and a path there would dead-end.
    let portalSignsIn: Bool

    func content(appID: String) async throws -> CustomerCenterContent {
        let app = try await store.app(id: appID)
        let portal = portalSignsIn ? PortalLinks.home(publicURL: publicURL, appID: app.id) : nil
        // Both SDKs show it only for a subscription with a `management_url` (a web one) and open that URL.
        let cancel = CustomerCenterContent.Path(id: "cancel", title: "Cancel subscription", action: .cancelSubscription)
        let purchases = portal.map { CustomerCenterContent.Path(id: "web_purchases", title: "Web purchases and receipts", action: .open($0)) }
        let find = portal.map { CustomerCenterContent.Path(id: "find_web_purchase", title: "Find a web purchase", action: .open($0)) }
        return CustomerCenterContent(
            management: .init(title: "How can we help?", subtitle: nil, paths: [cancel] + [purchases].compactMap { $0 }),
            noActive: .init(
                title: "No subscriptions found",
                subtitle: find.map { _ in "Bought \(app.name) on the web? Find your purchase with the e-mail address you paid with." },
                paths: [find].compactMap { $0 }),
            supportEmail: app.supportEmail, branding: app.branding)
    }
}

/// The Customer Center's two screens and the support address, before they are written as RevenueCat's configuration.
struct CustomerCenterContent: Equatable, Sendable {
    enum Action: Equatable, Sendable {
        /// RevenueCat's `CANCEL`: for a web subscription, its `management_url`.
        case cancelSubscription
        /// RevenueCat's `CUSTOM_URL`, opened in the browser: the portal's sign-in is an e-mailed link, which the
        /// browser opens, not the app's in-app view.
        case open(String)
    }

    struct Path: Equatable, Sendable {
        let id: String
        let title: String
        let action: Action
    }

    struct Screen: Equatable, Sendable {
        let title: String
        let subtitle: String?
        let paths: [Path]
    }

    /// Shown when the user has an active purchase.
    let management: Screen
    /// Shown when nothing is active.
    let noActive: Screen
    let supportEmail: String?
    /// The app's checkout colours, for the Customer Center's: the same look in the app as on its pages.
    let branding: CheckoutBranding
}
