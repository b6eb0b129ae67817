import Foundation
import RedeemCore

/// The Customer Center's words in one language: RevenueCat's SDK keys (`localized_strings`; none in English, where
/// the SDKs' own defaults stand) and the titles of Redeem's screens and paths.
struct CustomerCenterTexts: Decodable, Equatable, Sendable {
    struct Redeem: Decodable, Equatable, Sendable {
        let managementTitle: String
        let cancelSubscription: String
        let webPurchases: String
        let noActiveTitle: String
        let findWebPurchase: String
        /// `{app}` stands for the app's name.
        let noActiveSubtitle: String

        enum CodingKeys: String, CodingKey {
            case managementTitle = "management_title"
            case cancelSubscription = "cancel_subscription"
            case webPurchases = "web_purchases"
            case noActiveTitle = "no_active_title"
            case findWebPurchase = "find_web_purchase"
            case noActiveSubtitle = "no_active_subtitle"
        }
    }

    /// RevenueCat's locale for the language, as its configuration names one (`de_DE`).
    let locale: String
    let redeem: Redeem
    let sdk: [String: String]
}

/// Every language the Customer Center speaks (`Resources/customer-center/<language>.json`), read once at start; the
/// device's languages choose.
struct CustomerCenterLanguages: Sendable {
    /// By language code (`de`), English among them.
    let texts: [String: CustomerCenterTexts]
    let english: CustomerCenterTexts

    static func load() throws -> CustomerCenterLanguages {
        guard let directory = Bundle.module.url(forResource: "customer-center", withExtension: nil, subdirectory: "Resources") else {
            throw ConfigurationError(setting: "customer-center", reason: "is missing from the RedeemServer bundle")
        }
        var texts: [String: CustomerCenterTexts] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".json") {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            texts[String(name.dropLast(5))] = try JSONDecoder().decode(CustomerCenterTexts.self, from: data)
        }
        guard let english = texts["en"] else { throw ConfigurationError(setting: "customer-center", reason: "has no en.json") }
        return CustomerCenterLanguages(texts: texts, english: english)
    }

    /// The first of the device's languages with texts, English otherwise. Both SDKs send up to three locales in
    /// `X-Preferred-Locales`, most preferred first, with underscores (`pt_BR,en_US`).
    func texts(preferredLocales: String?) -> CustomerCenterTexts {
        for locale in (preferredLocales ?? "").split(separator: ",") {
            if let language = AcceptLanguage.language(of: locale), let found = texts[language] { return found }
        }
        return english
    }
}
