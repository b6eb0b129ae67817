import Foundation

/// The footer's choice of language on a buyer page: each language Redeem speaks, named in itself, linking to the same
/// page with `?lang=` (the rest of the query kept as it came, a purchase link's `utm_*` and `currency` among it). The
/// link is the query alone, which the browser resolves against the page: a path written into it could be `//host`,
/// which would send the buyer to another site.
/// `BuyerLanguageMiddleware` then remembers the choice for the pages that follow. Only on pages fetched with GET, which
/// the link can fetch again; a page answering a form has none.
struct LanguageMenu: PageModel {
    struct Choice: Sendable {
        let tag: String
        let name: String
        let href: String
        let current: Bool
    }

    struct Menu: Sendable {
        let currentName: String
        let choices: [Choice]
    }

    /// Nil when the page is not a buyer page fetched with GET.
    let languageMenu: Menu?

    /// The query of the buyer page being served with GET (empty when it has none); nil when the page is not one.
    /// Set by `BuyerLanguageMiddleware`.
    @TaskLocal static var query: String?

    /// The menu of the page being served, in its language.
    static var current: LanguageMenu {
        LanguageMenu(languageMenu: query.map { menu(query: $0, current: BuyerTexts.current.language) })
    }

    /// Each language Redeem speaks, by tag, named in itself: worked out once, not for every page.
    static let spoken: [(tag: String, name: String)] = BuyerLanguages.bundled.texts.keys.sorted().map { ($0, name(of: $0)) }

    static func menu(query: String, current: String) -> Menu {
        // The query as it came, but for its `lang`: re-encoding it could change a value (`+` is a space to some readers).
        let kept = query.split(separator: "&").filter { !($0 == "lang" || $0.hasPrefix("lang=")) }
        let choices = spoken.map { tag, name in
            Choice(tag: tag, name: name, href: "?" + (kept + ["lang=\(tag)"]).joined(separator: "&"), current: tag == current)
        }
        return Menu(currentName: choices.first { $0.current }?.name ?? name(of: current), choices: choices)
    }

    /// The language's name in itself, capitalised as a menu item is (`français` is `Français`).
    static func name(of tag: String) -> String {
        let name = Locale(identifier: tag).localizedString(forIdentifier: tag) ?? tag
        return name.prefix(1).uppercased() + name.dropFirst()
    }
}
