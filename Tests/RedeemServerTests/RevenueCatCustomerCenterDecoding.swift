import Foundation

/// The Customer Center's configuration as each SDK decodes it.
/// - iOS: `CustomerCenterConfigResponse` (purchases-ios `Sources/Networking/Responses/CustomerCenterConfigResponse.swift`),
///   mirrored below field for field with the same optionality, decoded as the SDK decodes (snake case converted; an
///   unknown screen, path or open-method value reads as `unknown`).
/// - Android: `CustomerCenterConfigData` (purchases-android `customercenter/CustomerCenterConfigData.kt` and its
///   serializers): a screen under an unknown key, or a path that fails to decode, is dropped without a word, so the
///   checks name them.
enum RevenueCatCustomerCenterDecoding {
    struct Response: Decodable {
        let customerCenter: CustomerCenter
        let lastPublishedAppVersion: String?
        let itunesTrackId: UInt?
    }

    struct CustomerCenter: Decodable {
        let appearance: Appearance
        let screens: [String: Screen]
        let localization: Localization
        let support: Support
        let changePlans: [ChangePlan]
    }

    struct Localization: Decodable {
        let locale: String
        let localizedStrings: [String: String]
    }

    struct Appearance: Decodable {
        struct Colors: Decodable {
            let accentColor: String?
            let textColor: String?
            let backgroundColor: String?
            let buttonTextColor: String?
            let buttonBackgroundColor: String?
        }

        let light: Colors
        let dark: Colors
    }

    struct Screen: Decodable {
        let title: String
        let type: Known<ScreenType>
        let subtitle: String?
        let paths: [HelpPath]
    }

    enum ScreenType: String {
        case management = "MANAGEMENT"
        case noActive = "NO_ACTIVE"
    }

    enum PathType: String {
        case missingPurchase = "MISSING_PURCHASE"
        case refundRequest = "REFUND_REQUEST"
        case changePlans = "CHANGE_PLANS"
        case cancel = "CANCEL"
        case customUrl = "CUSTOM_URL"
        case customAction = "CUSTOM_ACTION"
    }

    enum OpenMethod: String {
        case inApp = "IN_APP"
        case external = "EXTERNAL"
    }

    /// iOS's `CodableEnumWithUnknownCase`: any string decodes; one it does not know is `unknown` (nil here).
    struct Known<Value: RawRepresentable>: Decodable where Value.RawValue == String {
        let value: Value?
        init(from decoder: any Decoder) throws { value = Value(rawValue: try decoder.singleValueContainer().decode(String.self)) }
    }

    struct HelpPath: Decodable {
        let id: String
        let title: String
        let type: Known<PathType>
        let url: String?
        let openMethod: Known<OpenMethod>?
        let refundWindow: String?
        let actionIdentifier: String?

        /// iOS's `CustomerCenterConfigData.HelpPath(from:)` drops a custom URL without a URL or an open method.
        var keptByIOS: Bool {
            type.value != .customUrl || (url.flatMap(URL.init(string:)) != nil && openMethod?.value != nil)
        }
    }

    struct Support: Decodable {
        let email: String
        let shouldWarnCustomerToUpdate: Bool?
        let displayPurchaseHistoryLink: Bool?
        let displayUserDetailsSection: Bool?
        let displayVirtualCurrencies: Bool?
        let shouldWarnCustomersAboutMultipleSubscriptions: Bool?
        let supportTickets: SupportTickets?
    }

    /// iOS `CustomerCenterConfigResponse.Support.SupportTickets`; the form shows when `allowCreation` and the customer
    /// type covers the customer (`SubscriptionDetailViewModel.shouldShowCreateTicketButton`).
    struct SupportTickets: Decodable {
        let allowCreation: Bool
        let customerType: String
    }

    struct ChangePlan: Decodable {
        let groupId: String
        let groupName: String
    }

    /// As iOS's backend decodes it.
    static func ios(_ body: String) throws -> Response {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(Response.self, from: Data(body.utf8))
    }

    /// What Android would refuse or drop: kotlinx.serialization with unknown keys ignored, enums by name.
    static func androidProblems(_ body: String) -> [String] {
        guard let center = RevenueCatDecoding.object(body)?["customer_center"] as? [String: Any] else {
            return ["no customer_center object"]
        }
        var problems: [String] = []
        for key in ["appearance", "support"] where !(center[key] is [String: Any]) { problems.append("\(key) is not an object") }
        // `PaywallColor`: `#rrggbb` or `#rrggbbaa` (`ColorUtils.parseRGBAColor`); else `Color.parseColor`, which throws on
        // most else and fails the whole configuration.
        for scheme in ["light", "dark"] {
            for (key, value) in (center["appearance"] as? [String: Any])?[scheme] as? [String: Any] ?? [:]
            where (value as? String)?.wholeMatch(of: /#[0-9A-Fa-f]{6}([0-9A-Fa-f]{2})?/) == nil {
                problems.append("appearance.\(scheme).\(key) is not a colour: \(value)")
            }
        }
        // `SupportTickets`: `allow_creation` a boolean and `customer_type` one of its four names, or the whole answer
        // fails to decode.
        if let tickets = (center["support"] as? [String: Any])?["support_tickets"] {
            let fields = tickets as? [String: Any]
            if !(fields?["allow_creation"] is Bool) || !["not_active", "none", "all", "active"].contains(fields?["customer_type"] as? String ?? "") {
                problems.append("support.support_tickets does not decode: \(tickets)")
            }
        }
        let localization = center["localization"] as? [String: Any]
        if !(localization?["locale"] is String) || !(localization?["localized_strings"] is [String: String]) {
            problems.append("localization needs a locale and localized_strings")
        }
        guard let screens = center["screens"] as? [String: Any] else { return problems + ["screens is not an object"] }
        for (key, value) in screens {
            guard ["MANAGEMENT", "NO_ACTIVE"].contains(key) else {
                problems.append("screen \(key) is dropped")
                continue
            }
            guard let screen = value as? [String: Any], screen["type"] as? String == key, screen["title"] is String,
                let paths = screen["paths"] as? [[String: Any]]
            else {
                problems.append("screen \(key) needs its type, a title and paths")
                continue
            }
            let types = ["MISSING_PURCHASE", "REFUND_REQUEST", "CHANGE_PLANS", "CANCEL", "CUSTOM_URL", "CUSTOM_ACTION"]
            for path in paths {
                let method = path["open_method"]
                let decodes =
                    path["id"] is String && path["title"] is String && types.contains(path["type"] as? String ?? "")
                    && (method == nil || ["IN_APP", "EXTERNAL"].contains(method as? String ?? ""))
                if !decodes { problems.append("a path of \(key) is dropped: \(path)") }
            }
        }
        return problems
    }
}
