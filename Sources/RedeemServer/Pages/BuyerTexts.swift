import Foundation

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
    func choose(acceptLanguage: String?) -> BuyerTexts {
        for tag in AcceptLanguage.tags(acceptLanguage) {
            if let language = AcceptLanguage.language(of: Substring(tag)), let found = texts[language] { return found }
        }
        return english
    }
}

/// The languages a browser or a device asks for.
enum AcceptLanguage {
    /// `Accept-Language`'s tags, highest weight first, those of weight 0 left out (`de-CH;q=0.9` → `de-CH`).
    static func tags(_ header: String?) -> [String] {
        let tags = (header ?? "").split(separator: ",").prefix(20).compactMap { part -> (tag: String, weight: Double)? in
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = pieces.first, !tag.isEmpty, tag != "*", tag.count <= 35,
                tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            else { return nil }
            let weight = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return (tag, weight)
        }
        // A stable sort: equal weights keep the browser's order.
        return tags.enumerated().filter { $0.element.weight > 0 }
            .sorted { ($0.element.weight, -$0.offset) > ($1.element.weight, -$1.offset) }.map(\.element.tag)
    }

    /// A BCP 47 language tag as browsers and devices write them (`de`, `pt-BR`, `zh_Hant_TW`), at most 35 characters.
    static func isTag(_ text: String) -> Bool {
        text.count <= 35 && text.wholeMatch(of: /[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*/) != nil
    }

    /// What names a language's file: the language before the region (`de` of `de_AT`), and for Chinese its script,
    /// written or implied by the region (`zh_Hant_TW`, `zh-HK`: `zh-Hant`; `zh_Hans_CN`, `zh-CN`: `zh-Hans`).
    static func language(of tag: Substring) -> String? {
        let parts = tag.trimmingCharacters(in: .whitespaces).split(whereSeparator: { $0 == "_" || $0 == "-" }).map { $0.lowercased() }
        guard let language = parts.first else { return nil }
        guard language == "zh" else { return language }
        return parts.dropFirst().contains { ["hant", "tw", "hk", "mo"].contains($0) } ? "zh-Hant" : "zh-Hans"
    }
}
