import Foundation

/// What an app's settings leave buyers without, as RevenueCat warns when redemption links are on without an icon and
/// a store link. Each warning says what is missing and what it costs the buyer.
public enum AppSetupCheck {
    /// `paidCheckout`: whether this server has Stripe, without which production purchase links and paid offers sell nothing.
    public static func warnings(_ app: App, paidCheckout: Bool) -> [String] {
        var warnings: [String] = []
        if !paidCheckout {
            warnings.append(
                "Stripe is not configured on this server (REDEEM_STRIPE_SECRET_KEY): production purchase links and paid offers tell "
                    + "buyers they are not on sale; only sandbox links complete.")
        }
        let linksOn = app.redemptionLinkPolicy != .disabled
        if linksOn, app.iconURL == nil {
            warnings.append("Redemption links are on but the app has no icon: the link page and e-mails show a generic one.")
        }
        if linksOn, app.appStoreURL == nil, app.playStoreURL == nil {
            warnings.append("Redemption links are on but there is no App Store or Play Store link: a buyer without the app cannot get it.")
        }
        if app.supportEmail == nil {
            warnings.append("There is no support e-mail: pages cannot say where to ask for help.")
        }
        if linksOn, !hasAppLinks(app) {
            warnings.append("No universal-link or app-link settings: HTTPS links open the link page instead of the app.")
        }
        return warnings
    }
}
