import Foundation
import HTTPTypes
import RedeemCore
import RedeemTestSupport
import SQLKernel
import Testing

@testable import RedeemServer

/// The buyer pages' words: every language complete and shaped as English, and the browser's languages choosing.
@Suite struct BuyerLanguagesTests {
    static let languages = ["de", "en", "es", "fr", "it", "ja", "ko", "nl", "pt", "zh-Hans", "zh-Hant"]

    /// A text's Mustache tags (`{{appName}}`, `{{#manageURL}}`) and HTML tags, counted: a translation must carry the
    /// same, or a page would lose a value, a link or a section's end.
    static func shape(_ text: String) -> [String: Int] {
        let pattern = try! Regex(#"\{\{[^}]*\}\}|</?[a-z]+"#)
        return text.matches(of: pattern).reduce(into: [:]) { counts, match in counts[String(text[match.range]), default: 0] += 1 }
    }

    @Test func everyLanguageHasEveryTextShapedAsEnglish() throws {
        let loaded = try BuyerLanguages.load()
        #expect(loaded.texts.keys.sorted() == Self.languages)
        let english = loaded.english.words
        #expect(english.count > 150)
        for language in Self.languages {
            let words = try #require(loaded.texts[language]).words
            #expect(Set(words.keys) == Set(english.keys), "\(language): \(Set(words.keys).symmetricDifference(english.keys).sorted())")
            for (key, text) in english {
                let translated = try #require(words[key], "\(language) lacks \(key)")
                #expect(Self.shape(translated) == Self.shape(text), "\(language) \(key): \(translated)")
                #expect(!translated.isEmpty && translated == translated.trimmingCharacters(in: .whitespaces), "\(language) \(key)")
                if language != "en" {
                    // One word may be the same ("Test", "minutes", "Product"); a phrase left in English is a missed translation.
                    let words = text.replacing(try Regex(#"\{\{[^}]*\}\}|<[^>]*>|App Store|Google Play"#), with: "")
                    #expect(translated != text || words.split(separator: " ").count < 2, "\(language) \(key) is English")
                }
            }
        }
    }

    /// The texts Swift picks by a value's name exist for every value.
    @Test func everyNamedTextExists() throws {
        let english = try BuyerLanguages.load().english.words
        var keys = OfferRedemptionFailure.allCases.map { "offer.refused.\($0.rawValue)" }
        keys += CancellationFeedback.allCases.map { "portal.reason.\($0.rawValue)" }
        for notice in ["cancelled", "cancel-requested", "resumed", "resume-requested", "reason-refused"] {
            keys.append("portal.notice.\(try #require(PortalNotice(rawValue: notice)).rawValue)")
        }
        for unit in ["year", "month", "week", "day", "hour", "minute"] { keys += ["unit.\(unit).one", "unit.\(unit).other"] }
        keys += ["year", "month", "week", "day"].map { "per.\($0)" }
        keys += ["already_redeemed", "not_eligible", "invalid"].map { "offer.refused.web.\($0)" }
        // The error pages' reasons a test cannot provoke over HTTP (a lost race) or that only production checkouts give.
        keys += ["already_subscribed", "app_only", "race"].map { "error.detail.\($0)" }
        for key in keys { #expect(english[key] != nil, "\(key)") }
    }

    /// Every `[[key]]` a template names is English's; a name English lacks stops the start, naming the template.
    @Test func templatesNameOnlyKnownTexts() async throws {
        let templates = try await Templates.load()
        #expect(templates.libraries.keys.sorted() == Self.languages)
        let english = BuyerLanguages.bundled.english
        #expect(
            try Templates.localize("<p>[[getapp.text]]</p><html lang=\"[[lang]]\">", english, template: "t")
                == "<p>\(english["getapp.text"])</p><html lang=\"en\">")
        #expect(throws: ConfigurationError.self) { try Templates.localize("<p>[[no.such.key]]</p>", english, template: "t") }
    }

    @Test(arguments: [
        ("de-DE,de;q=0.9,en;q=0.8", "de"), ("fr-CA", "fr"), ("sv-SE,sv;q=0.9,es;q=0.5", "es"), ("en-GB,de;q=0.9", "en"),
        ("ja;q=0.5,ko", "ko"), ("zh-TW", "zh-Hant"), ("zh-Hant-HK", "zh-Hant"), ("zh-CN,zh;q=0.9", "zh-Hans"), ("zh", "zh-Hans"),
        ("pt-PT", "pt"), ("it;q=0,nl", "nl"), ("xx-YY", "en"), ("", "en"), ("*", "en"), ("de;q=abc,fr;q=0.2", "de"),
        ("<script>,ja", "ja"),
    ])
    func theBrowsersFirstLanguageRedeemSpeaksWins(_ header: String, _ expected: String) {
        #expect(BuyerLanguages.bundled.choose(acceptLanguage: header).language == expected)
    }

    @Test func periodsAndTimesAreCountedInTheLanguage() throws {
        let german = BuyerFormat(acceptLanguage: "de-DE")
        #expect(german.texts.language == "de")
        let english = BuyerFormat.english
        #expect(english.words(try ISO8601Period(parsing: "P1Y6M")) == "1 year 6 months")
        #expect(english.words(try ISO8601Period(parsing: "P3D")) == "3 days")
        #expect(TimeLeft.words(seconds: 59, texts: english.texts) == "less than a minute")
        #expect(TimeLeft.words(seconds: 61, texts: english.texts) == "1 minute")
        #expect(TimeLeft.words(seconds: 3 * 86_400, texts: english.texts) == "3 days")
        let french = try #require(BuyerLanguages.bundled.texts["fr"])
        #expect(CheckoutPageController.trialWords(1, texts: french).contains("1 jour "), "one day, in the singular")
        #expect(CheckoutPageController.trialWords(7, texts: french).contains("7 jours "))
        for language in Self.languages {
            let texts = try #require(BuyerLanguages.bundled.texts[language])
            for (unit, count) in [("unit.month", 1), ("unit.month", 3), ("unit.minute", 59), ("unit.day", 6), ("checkout.trial_days", 1)] {
                let text = texts.count(count, unit)
                #expect(text.contains(String(count)) && !text.contains("{{"), "\(language) \(unit) \(count): \(text)")
            }
        }
    }

    /// A buyer page answers in the browser's language, from its `<html lang>` to its refusals; the console stays English whatever the browser asks.
    @Test(arguments: TestDatabases.available) func buyerPagesSpeakTheBrowsersLanguage(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp(#"{"name": "Lumen", "support_email": "help@lumen.example"}"#)
            _ = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: #"{"id": "lifetime", "type": "non_consumable"}"#)
            let token = try RedemptionAPITests.token(from: try await server.grant(app, #"{"app_user_id": "bob", "product_id": "lifetime"}"#))
            let all = BuyerLanguages.bundled.texts
            for (header, language) in [("de-AT,de;q=0.9", "de"), ("ja-JP", "ja"), ("zh-HK", "zh-Hant"), ("sv-SE,fr;q=0.4", "fr"), ("", "en")] {
                let texts = try #require(all[language])
                let headers: HTTPFields = header.isEmpty ? [:] : [.acceptLanguage: header]
                let page = try await server.send(.get, "/r/\(token)", key: nil, headers: headers)
                #expect(page.status == 200 && page.body.contains("<html lang=\"\(language)\">"), "\(header)")
                #expect(page.body.contains(texts["link.ready_title"]), "\(header): the heading")
                #expect(page.body.contains(TimeLeft.words(seconds: 3_600, texts: texts)), "\(header): the time left in words")
                let missing = try await server.send(.get, "/r/\(String(repeating: "x", count: 43))", key: nil, headers: headers)
                #expect(missing.status == 404 && missing.body.contains(texts["link.invalid_title"]), "\(header): a bad link")
                let portal = try await server.send(.get, "/account/\(app.id)", key: nil, headers: headers)
                #expect(portal.body.contains(texts.format("signin.title", ["appName": "Lumen"])), "\(header): the portal")
                let unknown = try await server.send(.get, "/sandbox/p/\(app.id)/nothing", key: nil, headers: headers)
                #expect(unknown.status == 404 && unknown.body.contains(texts["error.title.not_found"]), "\(header): an error page")
                if language != "en" {
                    #expect(!page.body.contains(all["en"]!["link.ready_title"]) && !missing.body.contains("This link isn’t valid"))
                }
            }
            let console = try await server.send(.get, "/console/sign-in", key: nil, headers: [.acceptLanguage: "de"])
            #expect(console.body.contains("<html lang=\"en\">"), "the console stays English")
        }
    }

    /// A link's `?lang=` names the language over the browser's and is remembered for the pages that follow (a cookie):
    /// the checkout's form, its purchase and the success page. A language Redeem lacks changes nothing.
    @Test(arguments: TestDatabases.available) func aLinkNamesTheLanguageAndThePagesRememberIt(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            let german = try #require(BuyerLanguages.bundled.texts["de"])
            let japanese = try #require(BuyerLanguages.bundled.texts["ja"])
            let browser: HTTPFields = [.acceptLanguage: "en-US,en;q=0.9"]
            let page = try await server.send(.get, "/sandbox/p/\(app.id)/monthly?lang=de&utm_source=mail", key: nil, headers: browser)
            #expect(page.body.contains("<html lang=\"de\">") && page.body.contains("4,99\u{00A0}$ / Monat"), "German words and numbers")
            let cookie = try #require(page.headers[values: .setCookie].first { $0.hasPrefix("redeem_lang=") })
            #expect(cookie.hasPrefix("redeem_lang=de;") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"), "\(cookie)")
            var form = CheckoutTests.form
            form[.cookie] = "redeem_lang=de"
            form[.acceptLanguage] = "en-US"
            let paid = try await server.send(
                .post, "/sandbox/p/\(app.id)/monthly", key: nil,
                json: "email=lena%40example.com&checkout_id=\(try CheckoutTests.checkoutID(page))&param.utm_source=mail", headers: form)
            let done = try await server.landing(paid, headers: [.cookie: "redeem_lang=de", .acceptLanguage: "en-US"])
            #expect(done.body.contains(german.format("success.add_to_app", ["appName": "Shop"])), "the success page remembers it")
            let purchase = try #require(try await server.deps.store.purchases(appID: app.id, email: "lena@example.com").first)
            #expect(purchase.language == "de" && purchase.customParams == ["utm_source": "mail"], "a setting, not a parameter")

            let link = try await server.send(
                .get, "/r/\(String(repeating: "x", count: 43))?lang=ja-JP", key: nil, headers: [.cookie: "redeem_lang=de"])
            #expect(link.body.contains(japanese["link.invalid_title"]), "the link's language over the remembered one")
            for (query, cookie) in [("?lang=xx", "redeem_lang=de"), ("?lang=%3Cb%3E", "redeem_lang=de"), ("", "redeem_lang=de")] {
                let reply = try await server.send(.get, "/sandbox/p/\(app.id)/monthly\(query)", key: nil, headers: [.cookie: cookie])
                #expect(reply.body.contains("<html lang=\"de\">"), "\(query): the remembered one")
                #expect(!reply.headers[values: .setCookie].contains { $0.hasPrefix("redeem_lang=") }, "\(query): nothing new to remember")
            }
            let junk = try await server.send(
                .get, "/sandbox/p/\(app.id)/monthly", key: nil, headers: [.cookie: "redeem_lang=xx", .acceptLanguage: "fr"])
            #expect(junk.body.contains("<html lang=\"fr\">"), "a cookie naming no language Redeem speaks: the browser's")
        }
    }

    /// A buyer page fetched with GET offers every language, named in itself, each a link to the same page with its
    /// `lang` (the rest of the query kept as it came); following one speaks it and remembers it. A page answering a form and
    /// the console offer none.
    @Test(arguments: TestDatabases.available) func aPageOffersEveryLanguageByItsOwnAddress(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            let path = "/sandbox/p/\(app.id)/monthly/vip%20user%2B1"
            let page = try await server.send(
                .get, path + "?utm_source=news%26letter&lang=fr&currency=EUR", key: nil, headers: [.acceptLanguage: "en"])
            let menu = try #require(page.body.firstRange(of: "<details class=\"languages\">").map { String(page.body[$0.lowerBound...]) })
            #expect(menu.contains("aria-label=\"Langue: Français\""), "named in the page's language, the current one shown")
            for (tag, name) in [("de", "Deutsch"), ("ja", "日本語"), ("zh-Hant", "繁體中文"), ("pt", "Português"), ("en", "English")] {
                let href = "?utm_source=news%26letter&amp;currency=EUR&amp;lang=\(tag)"
                #expect(menu.contains("<a href=\"\(href)\" hreflang=\"\(tag)\" lang=\"\(tag)\">\(name)</a>"), "\(tag): \(menu.prefix(900))")
            }
            #expect(menu.contains("lang=fr\" hreflang=\"fr\" lang=\"fr\" aria-current=\"true\">Français</a>"))
            #expect(menu.components(separatedBy: "hreflang=").count - 1 == Self.languages.count)
            // Each link is the query alone, resolved against the page: no path, which as `//host` could lead elsewhere.
            #expect(menu.components(separatedBy: "<a href=\"").dropFirst().allSatisfy { $0.hasPrefix("?") })

            let german = try await server.send(
                .get, path + "?utm_source=news%26letter&currency=EUR&lang=de", key: nil, headers: [.cookie: "redeem_lang=fr"])
            #expect(german.body.contains("<html lang=\"de\">") && german.body.contains("aria-label=\"Sprache: Deutsch\""))
            #expect(german.headers[values: .setCookie].contains { $0.hasPrefix("redeem_lang=de;") }, "remembered for the pages that follow")

            var form = CheckoutTests.form
            form[.acceptLanguage] = "de"
            let checkout = try await server.send(.get, "/sandbox/p/\(app.id)/monthly", key: nil)
            let refused = try await server.send(
                .post, "/sandbox/p/\(app.id)/monthly", key: nil, json: "email=not-an-address&checkout_id=\(try CheckoutTests.checkoutID(checkout))",
                headers: form)
            #expect(
                refused.status == 422 && refused.body.contains("<html lang=\"de\">") && !refused.body.contains("class=\"languages\""),
                "a form's answer cannot be fetched again: \(refused.status)")
            let console = try await server.send(.get, "/console/sign-in", key: nil)
            #expect(console.status == 200 && !console.body.contains("class=\"languages\""))
        }
    }

    /// An error page's small type says why in the page's language where the reason is the buyer's to act on; the API
    /// keeps its English message, and a page with nothing to add beyond its title (an unknown path) says nothing more.
    @Test(arguments: TestDatabases.available) func errorPagesSayWhyInTheLanguage(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            let all = BuyerLanguages.bundled.texts
            let german = try #require(all["de"])
            _ = try await server.grant(app, #"{"app_user_id": "bob", "product_id": "lifetime"}"#)
            let owned = try await server.send(.get, "/sandbox/p/\(app.id)/lifetime/bob", key: nil, headers: [.acceptLanguage: "de-DE"])
            #expect(owned.status == 409 && owned.body.contains(german.format("error.detail.already_owned", ["product": "lifetime"])), "\(owned.body)")
            #expect(owned.body.contains(german["error.advice.done"]), "nothing to try again")
            let api = try await server.send(
                .get, "/v1/subscribers/\(String(repeating: "x", count: 300))", key: app.publicSandbox, headers: [.acceptLanguage: "de-DE"])
            #expect(api.status == 400 && api.body.contains("Invalid app user ID") && !api.body.contains(german["error.detail.account_link"]))

            func says(_ header: String, _ key: String, _ path: String, form: String? = nil) async throws {
                let texts = BuyerLanguages.bundled.choose(acceptLanguage: header)
                var headers: HTTPFields = [.acceptLanguage: header]
                if form != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
                let reply = try await server.send(form == nil ? .get : .post, path, key: nil, json: form, headers: headers)
                #expect((400..<500).contains(reply.status), "\(path)")
                #expect(reply.body.contains("<p class=\"reason\">\(texts[key])</p>"), "\(path) in \(header): \(reply.body)")
                #expect(!reply.body.contains("class=\"hint\""), "no English small type beside it")
            }
            try await says("ja-JP", "error.detail.reload", "/sandbox/p/\(app.id)/monthly", form: "email=a%40example.com")
            try await says("fr-FR", "error.detail.reopen_offer", "/redeem?ctx=nope&id=\(app.id)")
            try await says("nl", "error.detail.reload", "/redeem", form: "ctx=offercodes&id=\(app.id)&code=SPRING&claim_id=x")
            try await says("ko-KR", "error.detail.account_link", "/sandbox/p/\(app.id)/monthly?app_user_id=\(String(repeating: "x", count: 300))")
            try await says("zh-TW", "error.detail.incomplete_address", "/checkout/done/\(String(repeating: "x", count: 10))")
            let unknown = try await server.send(.get, "/checkout/\(app.id)/done", key: nil, headers: [.acceptLanguage: "de"])
            #expect(unknown.status == 404 && !unknown.body.contains("class=\"hint\""), "nothing beyond the title: \(unknown.body)")
        }
    }

    /// A lost race says so and asks for another try; only what the buyer already holds says that nothing more is
    /// needed; an operator's 409 keeps the status's words and its English reason in small type.
    @Test func conflictsAreWordedByWhatHappened() throws {
        let english = BuyerLanguages.bundled.english
        let raced = try #require(APIError.from(StoreError.raceLost("test")))
        let race = try #require(raced.page)
        #expect(race.reason == english["error.detail.race"] && race.title == english["error.title.failed"])
        #expect(race.advice == english["error.advice.again"])
        let owned = try #require(
            APIError.from(
                CheckoutError.alreadyOwned(
                    Product(appID: "a", id: "life", type: .nonConsumable, period: nil, displayName: nil, entitlements: [], createdAt: Date()))))
        #expect(owned.page?.advice == english["error.advice.done"] && owned.page?.title == nil)
        let unpriced = APIError.conflict("Product 'life' has no price, so it cannot be sold.")
        #expect(unpriced.page == nil && ErrorPages.detail(of: unpriced) == unpriced.message)
        #expect(ErrorPages.advice(for: 409) == english["error.advice.again"])
    }

    /// The JSON checkout API takes the buyer's language for the pages it sends them to; a tag that is not one is refused.
    @Test(arguments: TestDatabases.available) func aWebCheckoutCarriesTheBuyersLanguage(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server)
            for (language, lang) in [("pt-PT", "pt"), ("zh_Hant_TW", "zh-Hant"), ("sv", nil)] {
                let started = try await server.send(
                    .post, "/v1/web_checkouts", key: app.publicSandbox, json: #"{"product_id": "monthly", "language": "\#(language)"}"#)
                #expect(started.status == 201, "\(started.body)")
                let url = try #require(try started.string("checkout_url").flatMap(URLComponents.init(string:)))
                #expect(url.queryItems?.first { $0.name == "lang" }?.value == lang, "\(language)")
            }
            // Without a language Redeem speaks in the body, the request's own: a browser calling with the public key.
            for (language, header, lang) in [
                (nil, "de-DE,de;q=0.9", "de"), ("fr", "de-DE", "fr"), ("sv", "ja-JP,sv;q=0.5", "ja"), (nil, "*", nil), (nil, "", nil),
            ] as [(String?, String, String?)] {
                let body = language.map { #"{"product_id": "monthly", "language": "\#($0)"}"# } ?? #"{"product_id": "monthly"}"#
                let started = try await server.send(
                    .post, "/v1/web_checkouts", key: app.publicSandbox, json: body, headers: header.isEmpty ? [:] : [.acceptLanguage: header])
                let url = try #require(try started.string("checkout_url").flatMap(URLComponents.init(string:)))
                #expect(url.queryItems?.first { $0.name == "lang" }?.value == lang, "\(language ?? "none"), \(header)")
            }
            for bad in ["<script>", "de,fr", "", "x", String(repeating: "a", count: 40)] {
                let refused = try await server.send(
                    .post, "/v1/web_checkouts", key: app.publicSandbox, json: #"{"product_id": "monthly", "language": "\#(bad)"}"#)
                #expect(refused.status == 422 && refused.body.contains("language"), "\(bad): \(refused.body)")
            }
        }
    }
}
