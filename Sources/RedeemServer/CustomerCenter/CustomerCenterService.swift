import Foundation
import RedeemCore

/// RevenueCatUI's Customer Center for an app that sells on the web. Its paths lead to the app's portal, where a web
/// buyer cancels, resumes, reads receipts or finds a purchase by e-mail address; the App Store paths (refunds, plan
/// changes, restores) would lead nowhere here, so there are none. The same for every user of the app in a language:
/// the SDKs pick the screen and filter the paths by the CustomerInfo they hold.
struct CustomerCenterService: Sendable {
    let store: any CustomerCenterStore
    let publicURL: URL
    /// The portal signs buyers in with an e-mailed link: without e-mail it cannot, and a path there would dead-end.
    let portalSignsIn: Bool
    /// Whether the support form is offered (a support address, and e-mail on this server).
    let tickets: SupportTicketService

    /// The configuration in `texts`' language: Redeem's titles, and RevenueCat's keys for the SDKs' own words.
    func content(appID: String, texts: CustomerCenterTexts) async throws -> CustomerCenterContent {
        let app = try await store.app(id: appID)
        let words = texts.redeem
        let portal = portalSignsIn ? PortalLinks.home(publicURL: publicURL, appID: app.id) : nil
        // Both SDKs show it only for a subscription with a `management_url` (a web one) and open that URL.
        let cancel = CustomerCenterContent.Path(id: "cancel", title: words.cancelSubscription, action: .cancelSubscription)
        let purchases = portal.map { CustomerCenterContent.Path(id: "web_purchases", title: words.webPurchases, action: .open($0)) }
        let find = portal.map { CustomerCenterContent.Path(id: "find_web_purchase", title: words.findWebPurchase, action: .open($0)) }
        return CustomerCenterContent(
            management: .init(title: words.managementTitle, subtitle: nil, paths: [cancel] + [purchases].compactMap { $0 }),
            noActive: .init(
                title: words.noActiveTitle,
                subtitle: find.map { _ in words.noActiveSubtitle.replacingOccurrences(of: "{app}", with: app.name) },
                paths: [find].compactMap { $0 }),
            supportEmail: app.supportEmail, supportTickets: tickets.offered(for: app), branding: app.branding, locale: texts.locale,
            sdkStrings: texts.sdk)
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
    /// The SDKs' support form (`support_tickets`) in place of their `mailto:` link, for everyone.
    let supportTickets: Bool
    /// The app's checkout colours, for the Customer Center's: the same look in the app as on its pages.
    let branding: CheckoutBranding
    /// RevenueCat's `localization`: the language's locale, and its words for the SDKs' own keys.
    let locale: String
    let sdkStrings: [String: String]
}
