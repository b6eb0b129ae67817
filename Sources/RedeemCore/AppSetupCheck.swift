import Foundation

/// What an app's settings leave buyers without, as RevenueCat warns when redemption links are on without an icon and
/// a store link. Each warning says what is missing and what it costs the buyer.
public enum AppSetupCheck {
    public static func warnings(_ app: App) -> [String] {
        var warnings: [String] = []
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
        if linksOn, app.iosTeamID == nil || app.iosBundleID == nil, app.androidPackageName == nil {
            warnings.append("No universal-link or app-link settings: HTTPS links open the link page instead of the app.")
        }
        return warnings
    }
}
