import Foundation
import Mustache
import Synchronization

/// The Mustache templates of hosted pages and e-mails, loaded once at start, in every language buyers are spoken to
/// in: a template's `[[key]]` is the language's text for that key (`[[lang]]` its code), put in before the template
/// is parsed, so a page costs the same in any language.
public struct Templates: Sendable {
    /// By language code.
    let libraries: [String: MustacheLibrary]

    static let required = [
        "redeem-link", "purchase-success", "sandbox-checkout", "checkout-pending", "email-receipt.html", "email-receipt.txt", "email-new-link.html",
        "email-new-link.txt", "email-notice.html", "email-notice.txt", "message", "console-sign-in", "console-search", "console-customer",
        "console-new-link", "console-audit",
    ]

    /// The bundle's templates, parsed by the first call and shared after: they are the same for the process's life.
    public static func load() async throws -> Templates {
        if let loaded = loaded.withLock({ $0 }) { return loaded }
        let parsed = try await parse()
        loaded.withLock { $0 = parsed }
        return parsed
    }

    private static let loaded = Mutex<Templates?>(nil)

    private static func parse() async throws -> Templates {
        guard let directory = Bundle.module.url(forResource: "templates", withExtension: nil, subdirectory: "Resources") else {
            throw ConfigurationError(setting: "templates", reason: "are missing from the RedeemServer bundle")
        }
        let languages = try BuyerLanguages.loaded.get()
        var sources: [String: String] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where file.hasSuffix(".mustache") {
            sources[String(file.dropLast(".mustache".count))] = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
        }
        for name in required where sources[name] == nil {
            throw ConfigurationError(setting: "templates", reason: "'\(name).mustache' is missing")
        }
        var libraries: [String: MustacheLibrary] = [:]
        // A template without words (the console's, the e-mails' partials) reads the same in every language: parsed once.
        var parsed: [String: MustacheTemplate] = [:]
        for (language, texts) in languages.texts {
            var library = MustacheLibrary()
            for (name, source) in sources {
                let localized = try localize(source, texts, template: name)
                let template = try parsed[localized] ?? MustacheTemplate(string: localized)
                parsed[localized] = template
                library.register(template, named: name)
            }
            libraries[language] = library
        }
        return Templates(libraries: libraries)
    }

    /// The template's source with each `[[key]]` replaced by the language's text; a key English lacks stops the start.
    static func localize(_ source: String, _ texts: BuyerTexts, template: String) throws -> String {
        var result = ""
        var rest = source[...]
        while let open = rest.range(of: "[["), let close = rest[open.upperBound...].range(of: "]]") {
            let key = String(rest[open.upperBound..<close.lowerBound])
            result += rest[..<open.lowerBound]
            if key == "lang" {
                result += texts.language
            } else if let text = texts.words[key] ?? texts.fallback[key] {
                result += text
            } else {
                throw ConfigurationError(setting: "templates", reason: "'\(template).mustache' names [[\(key)]], which en.json lacks")
            }
            rest = rest[close.upperBound...]
        }
        return result + rest
    }

    /// A page or an e-mail over its typed values, in a language (the request's buyer language by default). Every
    /// name was checked at load, so rendering cannot miss.
    func render(_ name: String, _ values: LayeredValues, language: String = BuyerTexts.current.language) -> String {
        (libraries[language] ?? libraries["en"])?.render(values, withTemplate: name) ?? ""
    }

    func render(_ name: String, _ model: some PageModel, language: String = BuyerTexts.current.language) -> String {
        render(name, LayeredValues(layers: [model]), language: language)
    }
}
