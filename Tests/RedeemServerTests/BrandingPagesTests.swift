import Foundation
import HTTPTypes
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// Checkout branding through the console, the admin API and the buyer pages; and the first steps the settings show.
@Suite struct BrandingPagesTests {
    static func settingsFields(csrf: String) -> [String: String] {
        [
            "csrf": csrf, "name": "Test App", "icon_url": "", "app_store_url": "", "play_store_url": "", "support_email": "",
            "ios_team_id": "", "ios_bundle_id": "", "android_package_name": "", "android_cert_fingerprints": "",
            "redemption_link_policy": "enabled", "redemption_link_lifetime_minutes": "60", "restore_behavior": "transfer",
            "after_purchase": "hosted", "after_purchase_url": "", "checkout_tax": "none", "brand_logo_url": "", "brand_accent": "",
            "brand_background": "", "brand_foreground": "", "brand_accent_dark": "", "brand_background_dark": "", "brand_foreground_dark": "",
        ]
    }

    @Test(arguments: TestDatabases.available)
    func theConsoleSavesBrandingAndRefusesBadValuesKeepingTheForm(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let owner = try await ConsoleTests.signedInOwner(server)
            let page = try await server.send(.get, "/console/apps/\(app.id)/settings", key: nil, headers: [.cookie: owner])
            #expect(page.body.contains("Checkout branding"))
            var fields = Self.settingsFields(csrf: try ConsoleOperationsTests.csrf(page))

            fields["brand_accent"] = "orange;}body{"
            let badColour = try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: owner)
            #expect(badColour.status == 422)
            #expect(badColour.body.contains("Accent (light) must be a hex colour such as #4338ca."))
            #expect(badColour.body.contains(##"value="orange;}body{""##), "the form keeps what was typed")
            #expect(!badColour.body.contains("--accent: orange"))

            fields["brand_accent"] = "#0F5132"
            fields["brand_logo_url"] = "http://cdn.example.com/logo.png"
            let badLogo = try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: owner)
            #expect(badLogo.status == 422 && badLogo.body.contains("Logo URL must be an absolute https URL."))
            #expect(badLogo.body.contains(##"value="http://cdn.example.com/logo.png""##))

            fields["brand_logo_url"] = "https://cdn.example.com/logo.png"
            fields["brand_foreground"] = "#dddddd"
            let unreadable = try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: owner)
            #expect(unreadable.status == 422)
            #expect(unreadable.body.contains("Text colour (light) has too little contrast with the background in light mode (1.4:1"))
            #expect(try await server.deps.store.app(id: app.id).brandAccent == nil, "nothing saved")

            fields["brand_foreground"] = ""
            fields["brand_accent_dark"] = "#ffd60a"
            let saved = try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: owner)
            #expect(saved.status == 303, "\(saved.body)")
            let stored = try await server.deps.store.app(id: app.id)
            #expect(stored.brandAccent?.hex == "#0f5132" && stored.brandAccentDark?.hex == "#ffd60a")
            #expect(stored.brandLogoURL == "https://cdn.example.com/logo.png")
            let audit = try await server.deps.store.auditLog(appID: app.id, limit: 10).filter { $0.action == "app.update" }
            #expect(audit.count == 1)
        }
    }

    /// Every buyer page carries the app's colours in its stylesheet, light and dark, and its logo.
    @Test(arguments: TestDatabases.available)
    func buyerPagesCarryTheAppsColours(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp(
                ##"{"name": "Branded", "brand_accent": "#0F5132", "brand_accent_dark": "#FFD60A", "brand_background_dark": "#000000", "##
                    + ##""brand_logo_url": "https://cdn.example.com/logo.png"}"##)
            let product = ##"{"id": "monthly", "type": "subscription", "period": "P1M", "price": {"amount": "4.99", "currency": "USD"}}"##
            #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: product).status == 201)
            let checkout = try await server.send(.get, "/sandbox/p/\(app.id)/monthly", key: nil)
            #expect(checkout.status == 200)
            let css = checkout.body
            #expect(css.contains(":root { --accent: #0f5132; --focus: #0f5132; --on-accent: #ffffff;"))
            #expect(css.contains("--accent: #ffd60a; --focus: #ffd60a; --on-accent: #000000;"), "dark: a black label on yellow")
            #expect(css.contains("--card: #000000;"))
            #expect(css.contains(##"<img class="app-logo" src="https://cdn.example.com/logo.png""##))
            for path in ["/account/\(app.id)", "/sandbox/redeem?id=\(app.id)"] {
                let page = try await server.send(.get, path, key: nil)
                #expect(page.body.contains("--accent: #0f5132;"), "\(path)")
            }
            // An app without branding keeps the pages' own colours and no extra block.
            let plain = try await server.createApp()
            #expect(try await server.send(.post, "/admin/v1/apps/\(plain.id)/products", key: plain.secret, json: product).status == 201)
            let unbranded = try await server.send(.get, "/sandbox/p/\(plain.id)/monthly", key: nil)
            #expect(unbranded.status == 200 && !unbranded.body.contains(":root { --accent") && !unbranded.body.contains(##"class="app-logo""##))
            // The admin API refuses what the console refuses, by field.
            let refused = try await server.send(
                .patch, "/admin/v1/apps/\(app.id)", key: server.adminKey, json: ##"{"brand_background": "#fff", "brand_foreground": "#eee"}"##)
            #expect(refused.status == 422 && refused.body.contains("brand_foreground"))
            let read = try await server.send(.get, "/admin/v1/apps/\(app.id)", key: server.adminKey)
            #expect(try read.string("brand_accent_dark") == "#ffd60a")
        }
    }

    /// The preview shows what is typed before it is saved, one scheme at a time; a refused colour leaves the saved ones.
    @Test(arguments: TestDatabases.available)
    func thePreviewHonoursUnsavedValues(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp(##"{"name": "Branded", "brand_accent": "#0f5132"}"##)
            let owner = try await ConsoleTests.signedInOwner(server)
            let base = "/console/apps/\(app.id)/preview/checkout"
            let dark = try await server.send(
                .get, base + "?scheme=dark&brand_accent_dark=%23ff00aa&brand_logo_url=https%3A%2F%2Fx.example%2Fl.png", key: nil,
                headers: [.cookie: owner])
            #expect(dark.status == 200)
            #expect(dark.body.contains(":root { color-scheme: dark;"))
            #expect(dark.body.contains("--accent: #ff00aa;"))
            #expect(dark.body.contains(##"src="https://x.example/l.png""##))
            #expect(try await server.deps.store.app(id: app.id).brandAccentDark == nil, "a preview saves nothing")
            let light = try await server.send(.get, base + "?scheme=light&brand_accent=nonsense", key: nil, headers: [.cookie: owner])
            #expect(light.body.contains(":root { color-scheme: light;"))
            #expect(light.body.contains("--accent: #0f5132;") && !light.body.contains("nonsense"))
            #expect(light.body.contains("Pay (sandbox)"))
            let anonymous = try await server.send(.get, base, key: nil)
            #expect(anonymous.status == 303)
        }
    }

    /// The settings' first steps are ticked from what is configured and link to where the rest is done.
    @Test(arguments: TestDatabases.available)
    func firstStepsFollowWhatIsConfigured(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let owner = try await ConsoleTests.signedInOwner(server)
            func done() async throws -> [String] {
                let page = try await server.send(.get, "/console/apps/\(app.id)/settings", key: nil, headers: [.cookie: owner])
                return page.body.matches(of: /data-step="([a-z_]+)" data-done="yes"/).map { String($0.1) }
            }
            #expect(try await done() == [])
            let overview = try await server.send(.get, "/console/apps/\(app.id)/overview", key: nil, headers: [.cookie: owner])
            #expect(overview.body.contains("First steps") && overview.body.contains("0 of 7 done"))
            let first = try await server.send(.get, "/console/apps/\(app.id)/settings", key: nil, headers: [.cookie: owner])
            #expect(first.body.contains(##"<a href="/console/apps/\##(app.id)/webhooks">Add a webhook endpoint</a>"##))
            #expect(first.body.contains("Sandbox only"))
            let product = ##"{"id": "monthly", "type": "subscription", "period": "P1M", "price": {"amount": "4.99", "currency": "USD"}}"##
            #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: product).status == 201)
            #expect(try await done() == ["product", "purchase_link"])
            let hook = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/webhooks", key: app.secret, json: ##"{"url": "https://example.com/hook"}"##)
            #expect(hook.status == 201)
            let policy = try await server.send(
                .patch, "/admin/v1/apps/\(app.id)", key: server.adminKey,
                json: ##"{"redemption_link_policy": "enabled", "ios_team_id": "ABCDE12345", "ios_bundle_id": "com.example.app"}"##)
            #expect(policy.status == 200)
            #expect(try await done() == ["product", "purchase_link", "link_policy", "app_links", "webhook"])
        }
    }
}
