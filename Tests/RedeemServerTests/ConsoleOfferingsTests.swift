import Foundation
import HTTPTypes
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// The console's offerings page, the store identifiers on the product form, and subscriber attributes on the customer
/// page: what owners may change and support may not, refused forms shown again as typed, and the result checked where
/// it counts (the SDKs' offerings route, the store).
@Suite struct ConsoleOfferingsTests {
    static func get(_ server: TestServer, _ path: String, cookie: String) async throws -> TestServer.Reply {
        try await server.send(.get, path, key: nil, headers: [.cookie: cookie])
    }

    @Test(arguments: TestDatabases.available)
    func ownersCreateEditAndDeleteOfferingsAndSupportMayNot(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await ConsoleTests.owner(server)
            _ = try await ConsoleTests.owner(server, email: "help@example.com", role: .support)
            let owner = "redeem_console=\(try await ConsoleTests.signIn(server))"
            let path = "/console/apps/\(app.id)/offerings"
            let empty = try await Self.get(server, path, cookie: owner)
            #expect(
                empty.status == 200 && empty.body.contains("Create an offering") && empty.body.contains("No offerings yet.")
                    && empty.body.contains("Create one below"))
            #expect(empty.body.hasPrefix("<!doctype html>"), "no template comment shows")
            let token = try ConsoleOperationsTests.csrf(empty)
            let offering = [
                "csrf": token, "identifier": "default", "description": "Pro <plans>", "metadata": #"{"theme": "dark", "a": 1}"#,
                "is_current": "yes", "package_0": "$rc_monthly", "product_0": "monthly", "package_1": "custom",
                "package_custom_1": "forever", "product_1": "lifetime",
            ]

            // No form token: refused, and nothing made.
            var unsigned = offering
            unsigned["csrf"] = nil
            #expect(try await ConsoleTests.post(server, path, unsigned, cookie: owner).status == 403)
            #expect(try await server.deps.store.offerings(appID: app.id).isEmpty)

            let created = try await ConsoleTests.post(server, path, offering, cookie: owner)
            #expect(created.headers[.location] == "\(path)?notice=offering-saved", "\(created.body)")
            let stored = try #require(try await server.deps.store.offerings(appID: app.id).first)
            #expect(stored.isCurrent && stored.description == "Pro <plans>" && stored.metadataJSON == #"{"a":1,"theme":"dark"}"#)
            #expect(stored.packages == [.init(id: "$rc_monthly", productID: "monthly"), .init(id: "forever", productID: "lifetime")])
            let listed = try await Self.get(server, path + "?notice=offering-saved", cookie: owner)
            #expect(listed.body.contains("Offering saved.") && listed.body.contains("<code>default</code> <span class=\"pill pill--active\">current"))
            #expect(listed.body.contains("Pro &lt;plans&gt;"), "escaped as HTML")
            #expect(listed.body.contains("iOS: not offered (no package&#39;s product has an App Store product ID)."), "no store IDs yet")
            #expect(listed.body.contains("The web: all 2, by Redeem&#39;s product IDs."))

            // A made-up standard identifier and bad metadata come back with what was typed, the field named.
            var madeUp = offering
            madeUp["identifier"] = "promo"
            madeUp["package_1"] = "custom"
            madeUp["package_custom_1"] = "$rc_made_up"
            let refused = try await ConsoleTests.post(server, path, madeUp, cookie: owner)
            #expect(refused.status == 422)
            #expect(refused.body.contains("Package identifier: &#39;$rc_made_up&#39;: identifiers starting with $ are RevenueCat&#39;s"))
            #expect(refused.body.contains(#"<details class="section" open>"#), "the form is open again")
            #expect(refused.body.contains(#"value="promo""#) && refused.body.contains(#"value="$rc_made_up""#))
            #expect(refused.body.contains(#"<option value="$rc_monthly" selected>"#) && refused.body.contains(#"<option value="lifetime" selected>"#))
            var badJSON = madeUp
            badJSON["package_custom_1"] = "forever"
            badJSON["metadata"] = "{theme: dark"
            let notJSON = try await ConsoleTests.post(server, path, badJSON, cookie: owner)
            #expect(notJSON.status == 422 && notJSON.body.contains("Metadata: must be a JSON object of at most 16 KB."))
            #expect(notJSON.body.contains(">{theme: dark</textarea>"))
            var noProduct = badJSON
            noProduct["metadata"] = ""
            noProduct["product_1"] = ""
            let missing = try await ConsoleTests.post(server, path, noProduct, cookie: owner)
            #expect(missing.status == 422 && missing.body.contains("Package product: choose the product of &#39;forever&#39;."))
            let duplicate = try await ConsoleTests.post(server, path, offering, cookie: owner)
            #expect(duplicate.status == 409 && duplicate.body.contains("offering &#39;default&#39; already exists"))
            #expect(try await server.deps.store.offerings(appID: app.id).count == 1, "nothing refused was stored")

            // Edit: the stored values in the form; a refused save keeps what was typed; then saved.
            let edit = try await Self.get(server, path + "/default", cookie: owner)
            #expect(edit.status == 200 && edit.body.hasPrefix("<!doctype html>") && edit.body.contains("Delete offering"))
            #expect(edit.body.contains(#"value="forever""#) && edit.body.contains("{\n  &quot;a&quot;"), "metadata indented")
            let changes = [
                "csrf": token, "description": "Annual only", "metadata": "[1, 2]", "package_0": "$rc_annual", "product_0": "monthly",
            ]
            let badEdit = try await ConsoleTests.post(server, path + "/default", changes, cookie: owner)
            #expect(badEdit.status == 422 && badEdit.body.contains("Metadata: must be a JSON object"))
            #expect(badEdit.body.contains(#"value="Annual only""#) && badEdit.body.contains(">[1, 2]</textarea>"))
            #expect(badEdit.body.contains(#"<option value="$rc_annual" selected>"#) && !badEdit.body.contains(#"value="forever""#))
            var goodEdit = changes
            goodEdit["metadata"] = ""
            let saved = try await ConsoleTests.post(server, path + "/default", goodEdit, cookie: owner)
            #expect(saved.headers[.location] == "\(path)?notice=offering-saved", "\(saved.body)")
            let edited = try #require(try await server.deps.store.offerings(appID: app.id).first)
            #expect(!edited.isCurrent && edited.description == "Annual only" && edited.metadataJSON == "{}")
            #expect(edited.packages == [.init(id: "$rc_annual", productID: "monthly")])

            // Support reads but may not write.
            let support = "redeem_console=\(try await ConsoleTests.signIn(server, email: "help@example.com"))"
            let readOnly = try await Self.get(server, path, cookie: support)
            #expect(readOnly.status == 200 && readOnly.body.contains("<code>default</code>") && !readOnly.body.contains("Create an offering"))
            // The current tab is marked, and only it.
            #expect(
                readOnly.body.contains(#"/offerings" aria-current="page""#)
                    && readOnly.body.components(separatedBy: #" aria-current="page">"#).count == 2)
            let supportToken = try ConsoleOperationsTests.csrf(readOnly)
            var theirs = offering
            theirs["csrf"] = supportToken
            theirs["identifier"] = "theirs"
            // A refusal is a console page: the operator's words, the navigation with the app's tabs, and a way back.
            let roleRefused = try await ConsoleTests.post(server, path, theirs, cookie: support)
            #expect(roleRefused.status == 403 && roleRefused.body.hasPrefix("<!doctype html>"))
            #expect(roleRefused.body.contains("Your role (support) may not change offerings."))
            #expect(roleRefused.body.contains(#"aria-label="Console""#) && roleRefused.body.contains(#"href="/console/apps/\#(app.id)/offerings""#))
            #expect(roleRefused.body.contains("← Back") && !roleRefused.body.contains("contact the app’s support"))
            let unknownApp = try await Self.get(server, "/console/apps/app_nope/offerings", cookie: support)
            #expect(unknownApp.status == 404 && unknownApp.body.contains("There is no app") && unknownApp.body.contains(#"href="/console">← Back"#))
            #expect(try await ConsoleTests.post(server, path + "/default", ["csrf": supportToken], cookie: support).status == 403)
            let supportDelete = ["csrf": supportToken, "confirm": "yes"]
            #expect(try await ConsoleTests.post(server, path + "/default/delete", supportDelete, cookie: support).status == 403)
            #expect(!(try await Self.get(server, path + "/default", cookie: support)).body.contains("Delete offering"))

            // Deleting needs its box ticked.
            let unconfirmed = try await ConsoleTests.post(server, path + "/default/delete", ["csrf": token], cookie: owner)
            #expect(unconfirmed.status == 422 && unconfirmed.body.contains("Tick the box to confirm the deletion."))
            let deleted = try await ConsoleTests.post(server, path + "/default/delete", ["csrf": token, "confirm": "yes"], cookie: owner)
            #expect(deleted.headers[.location] == "\(path)?notice=offering-deleted")
            #expect(try await server.deps.store.offerings(appID: app.id).isEmpty)
            #expect(try await Self.get(server, path + "/default", cookie: owner).status == 404)

            let actions = try await server.deps.store.auditLog(appID: app.id, limit: 20).filter { $0.actor == "operator:owner@example.com" }
            #expect(actions.map(\.action).sorted() == ["offering.create", "offering.delete", "offering.update"])
        }
    }

    @Test(arguments: TestDatabases.available)
    func storeIdentifiersOnTheProductFormReachTheSDKs(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let owner = try await ConsoleTests.signedInOwner(server)
            let products = "/console/apps/\(app.id)/products"
            let token = try ConsoleOperationsTests.csrf(try await Self.get(server, products, cookie: owner))
            var fields = [
                "csrf": token, "display_name": "Pro monthly", "price_amount": "4.99", "price_currency": "USD", "entitlements": "pro",
                "app_store_id": "com.example.pro.monthly", "play_store_id": "pro", "play_base_plan": "",
            ]
            let noPlan = try await ConsoleTests.post(server, products + "/monthly", fields, cookie: owner)
            #expect(noPlan.status == 422 && noPlan.body.contains("Google Play base plan: a Google Play subscription needs its base plan."))
            #expect(noPlan.body.contains(#"<details open><summary>Edit</summary>"#), "the product's form is open again")
            #expect(noPlan.body.contains(#"value="com.example.pro.monthly""#) && noPlan.body.contains(#"value="Pro monthly""#))
            fields["app_store_id"] = "com.example pro"
            let spaced = try await ConsoleTests.post(server, products + "/monthly", fields, cookie: owner)
            #expect(spaced.status == 422 && spaced.body.contains("App Store product ID: must be 1–150 characters without spaces"))
            fields["app_store_id"] = "com.example.pro.monthly"
            fields["play_base_plan"] = "monthly-base"
            let saved = try await ConsoleTests.post(server, products + "/monthly", fields, cookie: owner)
            #expect(saved.headers[.location] == "\(products)?notice=product-saved", "\(saved.body)")
            let product = try await server.deps.store.product(appID: app.id, id: "monthly")
            #expect(product.storeIDs == StoreProductIDs(appStore: "com.example.pro.monthly", playStore: "pro", playBasePlan: "monthly-base"))
            let listed = try await Self.get(server, products, cookie: owner)
            #expect(listed.body.hasPrefix("<!doctype html>"), "no template comment shows")
            #expect(listed.body.contains("App Store: com.example.pro.monthly<br>Google Play: pro (base plan monthly-base)"))
            #expect(listed.body.contains(#"<span class="muted">web only</span>"#), "lifetime has no store IDs")
            // A new product with its store ID; the form without store fields leaves them as they are.
            let added = try await ConsoleTests.post(
                server, products,
                [
                    "csrf": token, "id": "yearly", "type": "subscription", "period": "P1Y", "entitlements": "pro",
                    "app_store_id": "com.example.pro.yearly",
                ],
                cookie: owner)
            #expect(added.status == 303, "\(added.body)")
            #expect(try await server.deps.store.product(appID: app.id, id: "yearly").storeIDs.appStore == "com.example.pro.yearly")
            _ = try await ConsoleTests.post(server, products + "/monthly", ["csrf": token, "display_name": "Monthly"], cookie: owner)
            #expect(try await server.deps.store.product(appID: app.id, id: "monthly").storeIDs == product.storeIDs)

            let offering = [
                "csrf": token, "identifier": "default", "is_current": "yes", "package_0": "$rc_monthly", "product_0": "monthly",
                "package_1": "$rc_lifetime", "product_1": "lifetime",
            ]
            #expect(try await ConsoleTests.post(server, "/console/apps/\(app.id)/offerings", offering, cookie: owner).status == 303)
            let page = try await Self.get(server, "/console/apps/\(app.id)/offerings", cookie: owner)
            #expect(page.body.contains("iOS: 1 of 2 packages (the others&#39; products have no App Store product ID)."))
            #expect(page.body.contains("<code>pro:monthly-base</code>") && page.body.contains("not on iOS"))
            let ios = try await OfferingsTests.offerings(server, app.publicProduction, platform: "iOS")
            #expect(try ios.object()["current_offering_id"] as? String == "default")
            let packages = try OfferingsTests.packages(ios, offering: "default")
            #expect(packages.map { [$0["identifier"], $0["platform_product_identifier"]] } == [["$rc_monthly", "com.example.pro.monthly"]])
        }
    }

    @Test(arguments: TestDatabases.available)
    func theCustomerPageShowsSubscriberAttributesAndWhoSetThem(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            _ = try await ConsoleTests.owner(server, email: "help@example.com", role: .support)
            let support = "redeem_console=\(try await ConsoleTests.signIn(server, email: "help@example.com"))"
            let fromApp = try await SubscriberAttributesTests.post(
                server, app.publicProduction, user: "alice",
                [
                    "$email": ["value": "alice@example.com", "updated_at_ms": 1_780_000_000_000],
                    "plan": ["value": "<b>gold</b>", "updated_at_ms": 1000],
                ])
            #expect(fromApp.status == 200)
            let fromBackend = try await SubscriberAttributesTests.post(
                server, app.secret, user: "bob", ["$email": ["value": "bob@example.com", "updated_at_ms": 1_780_000_000_000]])
            #expect(fromBackend.status == 200)

            func page(_ user: String) async throws -> String {
                let customer = try #require(try await server.deps.store.findCustomer(appID: app.id, appUserID: try AppUserID(validating: user)))
                let reply = try await Self.get(server, "/console/apps/\(app.id)/customers/\(customer.id)", cookie: support)
                #expect(reply.status == 200)
                return reply.body
            }
            let alice = try await page("alice")
            #expect(alice.hasPrefix("<!doctype html>"))
            // The support role reads addresses masked.
            #expect(alice.contains("<code>$email</code></td><td class=\"wrap\">a***@e***.com<br>"))
            #expect(alice.contains("Used by search only: the portal and new-link requests need it set with the secret key."))
            #expect(alice.contains("2026-05-28 20:26:40 UTC"), "when the app set it")
            #expect(alice.contains("&lt;b&gt;gold&lt;/b&gt;"), "escaped as HTML")
            let bob = try await page("bob")
            #expect(bob.contains("Used by search, the customer portal and new-link requests."))
            #expect(bob.contains(#"<span class="pill pill--active">secret key</span>"#))
            let search = try await Self.get(server, "/console/apps/\(app.id)?q=alice%40example.com", cookie: support)
            #expect(search.body.contains("e-mail attribute"), "found by its $email")
        }
    }
}
