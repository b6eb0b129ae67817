import Foundation
import HTTPTypes
import RedeemCore
import RedeemTestSupport
import Testing

@testable import RedeemServer

/// RevenueCatUI's Customer Center (`GET /v1/customercenter/{app_user_id}`): a configuration both SDKs decode, whose
/// paths lead a web buyer to the app's portal.
@Suite struct CustomerCenterTests {
    typealias Decoding = RevenueCatCustomerCenterDecoding

    @Test(arguments: TestDatabases.available)
    func theCustomerCenterLeadsWebBuyersToThePortal(_ backend: TestBackend) async throws {
        // E-mail on (nothing is sent here): the portal can sign buyers in.
        try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: 9)) { server in
            let app = try await server.createApp(
                ##"{"name": "Café Lumen", "support_email": "help@lumen.example", "brand_accent": "#0a7d52", "brand_background_dark": "#101418"}"##)
            let reply = try await server.send(
                .get, "/v1/customercenter/%24RCAnonymousID%3A8b4e2cbb6c1c4a1f9c0d2f1b3a6e7d90", key: app.publicProduction)
            #expect(reply.status == 200 && reply.headers[.contentType]?.hasPrefix("application/json") == true, "\(reply.body)")
            #expect(Decoding.androidProblems(reply.body) == [])
            let center = try Decoding.ios(reply.body).customerCenter
            #expect(center.support.email == "help@lumen.example")
            #expect(center.support.displayPurchaseHistoryLink == true, "iOS's \"See All Purchases\", from the CustomerInfo it holds")
            // A support address and e-mail on: the SDKs' support form, for everyone, in place of their `mailto:` link.
            #expect(center.support.supportTickets?.allowCreation == true && center.support.supportTickets?.customerType == "all")
            #expect(center.localization.localizedStrings.isEmpty && center.changePlans.isEmpty)
            // The app's checkout colours, those it set: buttons in its accent, labelled as its pages label them.
            let (light, dark) = (center.appearance.light, center.appearance.dark)
            #expect(light.accentColor == "#0a7d52" && light.buttonBackgroundColor == "#0a7d52" && light.buttonTextColor == "#ffffff")
            #expect(light.backgroundColor == nil && light.textColor == nil && dark.accentColor == nil && dark.buttonTextColor == nil)
            #expect(dark.backgroundColor == "#101418")

            let portal = PortalLinks.home(publicURL: server.deps.publicURL, appID: app.id)
            let management = try #require(center.screens["MANAGEMENT"])
            #expect(management.type.value == .management && management.paths.allSatisfy(\.keptByIOS))
            // "Cancel subscription" opens the subscription's `management_url` (the portal), in both SDKs.
            #expect(management.paths.map(\.type.value) == [.cancel, .customUrl])
            #expect(management.paths[1].url == portal && management.paths[1].openMethod?.value == .external)

            let noActive = try #require(center.screens["NO_ACTIVE"])
            #expect(noActive.type.value == .noActive && noActive.subtitle?.contains("Café Lumen") == true)
            let find = try #require(noActive.paths.first)
            #expect(noActive.paths.count == 1 && find.keptByIOS && find.type.value == .customUrl && find.url == portal)
            // Where it leads, someone who bought on the web finds the purchase by e-mail address.
            let page = try await server.send(.get, try #require(URL(string: portal)).path, key: nil)
            #expect(page.status == 200 && page.body.contains("Send me a sign-in link"))
        }
    }

    @Test(arguments: TestDatabases.available)
    func withoutEmailOrASupportAddressNeitherIsOffered(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let reply = try await server.send(.get, "/v1/customercenter/alice", key: app.secret)
            let center = try Decoding.ios(reply.body).customerCenter
            #expect(Decoding.androidProblems(reply.body) == [])
            // The Android check itself sees what kotlinx would drop or refuse.
            let dropped = Decoding.androidProblems(
                ##"{"customer_center": {"appearance": {"light": {"accent_color": "red"}}, "support": {}, "localization": {"locale": "en_US", "localized_strings": {}}, "screens": {"MANAGEMENT": {"type": "MANAGEMENT", "title": "t", "paths": [{"id": "x", "title": "x", "type": "NOPE"}]}}}}"##
            )
            #expect(dropped.count == 2 && dropped.contains { $0.hasPrefix("appearance.light.accent_color") }, "\(dropped)")
            // Empty: iOS builds no mailto: link from it and Android reads it as none, so neither offers "Contact support".
            #expect(center.support.email == "" && center.support.supportTickets == nil)
            // Without e-mail the portal cannot sign anyone in, so no path leads there; "Cancel subscription" opens the
            // subscription's own `management_url`.
            #expect(center.screens["NO_ACTIVE"]?.paths.isEmpty == true)
            #expect(center.screens["MANAGEMENT"]?.paths.map(\.type.value) == [.cancel])

            #expect(try await server.send(.get, "/v1/customercenter/alice", key: nil).status == 401)
            #expect(try await server.send(.get, "/v1/customercenter/null", key: app.publicProduction).status == 400)
            let admin = try await server.send(.get, "/v1/customercenter/alice", key: server.adminKey)
            #expect(admin.status == 403, "\(admin.body)")
        }
    }

    /// The device's languages (`X-Preferred-Locales`, as both SDKs send them) choose the words: Redeem's titles and the
    /// SDKs' own keys. The first language Redeem has wins; English, the SDKs' own strings, otherwise.
    @Test(arguments: TestDatabases.available)
    func theCustomerCenterSpeaksTheDevicesLanguage(_ backend: TestBackend) async throws {
        try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: 9)) { server in
            let app = try await server.createApp(#"{"name": "Café Lumen"}"#)
            func center(_ locales: String?) async throws -> Decoding.CustomerCenter {
                var headers = HTTPFields()
                if let locales { headers[HTTPField.Name("X-Preferred-Locales")!] = locales }
                let reply = try await server.send(.get, "/v1/customercenter/alice", key: app.publicProduction, headers: headers)
                #expect(reply.status == 200 && Decoding.androidProblems(reply.body) == [], "\(reply.body)")
                return try Decoding.ios(reply.body).customerCenter
            }
            let french = try await center("fr_CA,en_US")
            #expect(french.localization.locale == "fr_FR")
            #expect(french.localization.localizedStrings["purchase_info_renews_on_date"] == "Se renouvelle le {{ date }}")
            #expect(french.screens["MANAGEMENT"]?.title == "Comment pouvons-nous vous aider ?")
            #expect(french.screens["MANAGEMENT"]?.paths.map(\.title) == ["Résilier l’abonnement", "Achats sur le web et reçus"])
            #expect(french.screens["NO_ACTIVE"]?.subtitle?.hasPrefix("Vous avez acheté Café Lumen sur le web ?") == true)
            // A language Redeem does not have is passed over for the next; Android's tags read the same.
            let german = try await center("sv_SE,de-AT")
            #expect(german.localization.locale == "de_DE" && german.screens["MANAGEMENT"]?.title == "Wie können wir helfen?")
            #expect(german.localization.localizedStrings.count == french.localization.localizedStrings.count)
            // Chinese by its script, written or implied by the region, as iOS and Android tag it.
            for (locales, title) in [
                ("zh_Hant_TW", "需要什麼協助？"), ("zh_HK", "需要什麼協助？"), ("zh_Hans_CN", "需要什么帮助？"), ("zh_CN,en_US", "需要什么帮助？"),
            ] {
                #expect(try await center(locales).screens["MANAGEMENT"]?.title == title, "\(locales)")
            }
            // English first, none at all, or nothing Redeem has: the SDKs' own English strings, Redeem's English titles.
            for locales in ["en_GB,de_DE", nil, "", "sv_SE,fi_FI", " , _"] {
                let english = try await center(locales)
                #expect(english.localization.locale == "en_US" && english.localization.localizedStrings.isEmpty, "\(locales ?? "none")")
                #expect(english.screens["MANAGEMENT"]?.title == "How can we help?")
            }
        }
    }

    /// Every language has a word for every key either SDK reads (`customer_center.strings.json`, from their sources),
    /// keeps each default's `{{ placeholders }}`, and names the app in its subtitle.
    @Test func everyLanguageHasEveryKeyBothSDKsRead() throws {
        let defaults = try #require(try RevenueCatFixtures.json("sdk/customer_center.strings.json") as? [String: [String: String]])
        let languages = try CustomerCenterLanguages.load()
        #expect(Set(languages.texts.keys) == ["de", "en", "es", "fr", "it", "ja", "ko", "nl", "pt", "zh-Hans", "zh-Hant"])
        #expect(languages.english.sdk.isEmpty && languages.english.locale == "en_US")
        func placeholders(_ text: String) -> Set<String> {
            Set(text.matches(of: /\{\{\s*(\w+)\s*\}\}/).map { String($0.1) })
        }
        for (language, texts) in languages.texts where language != "en" {
            #expect(Set(texts.sdk.keys) == Set(defaults.keys), "\(language)")
            #expect(texts.locale.hasPrefix(language.replacingOccurrences(of: "-", with: "_")), "\(language)")
            for (key, text) in texts.sdk {
                for (platform, english) in defaults[key] ?? [:] {
                    #expect(placeholders(text) == placeholders(english), "\(language) \(key) (\(platform))")
                }
                #expect(!text.isEmpty)
            }
            // Redeem's own titles, each in the language (none left in English), the subtitle naming the app.
            func titles(_ words: CustomerCenterTexts.Redeem) -> [String] {
                [
                    words.managementTitle, words.cancelSubscription, words.webPurchases, words.noActiveTitle, words.findWebPurchase,
                    words.noActiveSubtitle,
                ]
            }
            #expect(zip(titles(texts.redeem), titles(languages.english.redeem)).allSatisfy { !$0.isEmpty && $0 != $1 }, "\(language)")
            #expect(texts.redeem.noActiveSubtitle.contains("{app}"), "\(language)")
        }
    }
}
