import Foundation
import RedeemCore

/// A buyer's words in one language: every text of the buyer pages and e-mails by key, from
/// `Resources/buyer/<language>.json`. A text may name page values as Mustache tags (`Open in {{appName}}`): in a
/// template they are the page's own values, escaped as any; in Swift, `format` fills them.
struct BuyerTexts: Sendable {
    /// The language's code, as `<html lang>` takes it (`de`, `zh-Hant`).
    let language: String
    let words: [String: String]
    /// English, for a key a translation lacks (the tests make that never happen).
    let fallback: [String: String]

    subscript(key: String) -> String { words[key] ?? fallback[key] ?? key }

    /// The text with its `{{name}}` tags replaced by the values given, raw: the caller's page escapes the result.
    func format(_ key: String, _ values: [String: String]) -> String {
        var text = self[key]
        for (name, value) in values { text = text.replacingOccurrences(of: "{{\(name)}}", with: value) }
        return text
    }

    /// `3 months`, `1 month`: the unit's `.one` text for a count of one, its `.other` otherwise (the plural rules of
    /// every language here but French's zero, which no period has).
    func count(_ count: Int, _ unit: String) -> String {
        format("\(unit).\(count == 1 ? "one" : "other")", ["count": String(count)])
    }
}

/// Every language buyers are spoken to in, read once from the bundle; the browser's languages choose.
struct BuyerLanguages: Sendable {
    /// By language code, English among them.
    let texts: [String: BuyerTexts]
    var english: BuyerTexts { texts["en"]! }

    /// The bundle's languages, read once. A broken bundle is a build's fault: `Templates.load` reads `loaded` first and
    /// stops the server at start with its error, so no request ever finds `bundled` missing.
    static let loaded = Result { try load() }
    static var bundled: BuyerLanguages {
        switch loaded {
        case .success(let languages): languages
        case .failure(let error): preconditionFailure("The buyer texts in the RedeemServer bundle are broken: \(error)")
        }
    }

    static func load() throws -> BuyerLanguages {
        guard let directory = Bundle.module.url(forResource: "buyer", withExtension: nil, subdirectory: "Resources") else {
            throw ConfigurationError(setting: "buyer texts", reason: "are missing from the RedeemServer bundle")
        }
        var words: [String: [String: String]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".json") {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            words[String(name.dropLast(5))] = try JSONDecoder().decode([String: String].self, from: data)
        }
        guard let english = words["en"] else { throw ConfigurationError(setting: "buyer texts", reason: "have no en.json") }
        var texts: [String: BuyerTexts] = [:]
        for (language, own) in words { texts[language] = BuyerTexts(language: language, words: own, fallback: english) }
        return BuyerLanguages(texts: texts)
    }

    /// The language a link or an earlier page named (`?lang=`, its cookie) when Redeem speaks it (`pt-PT` is `pt`);
    /// nil otherwise.
    func named(_ tag: String?) -> BuyerTexts? {
        guard let tag, tag.count <= 35, let language = AcceptLanguage.language(of: Substring(tag)) else { return nil }
        return texts[language]
    }

    /// The first language of `Accept-Language` (by weight) that buyers are spoken to in; English otherwise.
    func choose(acceptLanguage: String?) -> BuyerTexts { spoken(acceptLanguage: acceptLanguage) ?? english }

    /// The first language of `Accept-Language` (by weight) that buyers are spoken to in; nil when it names none.
    func spoken(acceptLanguage: String?) -> BuyerTexts? {
        for tag in AcceptLanguage.tags(acceptLanguage) {
            if let language = AcceptLanguage.language(of: Substring(tag)), let found = texts[language] { return found }
        }
        return nil
    }
}
