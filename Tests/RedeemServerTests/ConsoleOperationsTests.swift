import Foundation
import HTTPTypes
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// The console's outbox, webhooks and keys pages: what they list, what owners may change, what support may not.
@Suite struct ConsoleOperationsTests {
    static func csrf(_ reply: TestServer.Reply) throws -> String {
        String(try #require(reply.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1))
    }

    @Test(arguments: TestDatabases.available)
    func theOutboxListsFailedEmailsWithTheirReasonAndSendsThemAgain(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await ConsoleTests.owner(server, email: "help@example.com", role: .support)
            let bought = try await server.grant(app, #"{"app_user_id": "m1", "product_id": "lifetime", "email": "m1@example.com"}"#)
            let purchaseID = try #require(try bought.string("purchase.id"))
            for id in ["eml_a", "eml_b"] {
                let email = QueuedEmail(
                    id: id, appID: app.id, purchaseID: purchaseID, kind: .receipt, recipient: "m1@example.com", createdAt: TestServer.start)
                _ = try await server.deps.store.enqueueEmail(email, quietPeriod: -1)
                try await server.deps.store.markEmailFailed(id: id, error: "550 5.1.1 no such mailbox", retryAt: nil, at: TestServer.start)
            }
            let cookie = "redeem_console=\(try await ConsoleTests.signIn(server, email: "help@example.com"))"
            let page = try await server.send(.get, "/console/apps/\(app.id)/emails", key: nil, headers: [.cookie: cookie])
            #expect(page.status == 200)
            #expect(page.body.contains("550 5.1.1 no such mailbox"))
            #expect(page.body.contains("Send all 2 failed again"))
            let all = try await ConsoleTests.post(server, "/console/apps/\(app.id)/emails/retry-all", ["csrf": try Self.csrf(page)], cookie: cookie)
            #expect(all.headers[.location] == "/console/apps/\(app.id)/emails?notice=email-retried")
            let due = try await server.deps.store.claimDueEmails(now: TestServer.start, lease: 60, limit: 10)
            #expect(Set(due.map(\.id)) == ["eml_a", "eml_b"])
            let audit = try await server.deps.store.auditLog(appID: app.id, limit: 10).filter { $0.action == "email.retry_all" }
            #expect(audit.first?.actor == "operator:help@example.com")
            #expect(audit.first?.detail == "2 e-mails")
        }
    }

    @Test(arguments: TestDatabases.available)
    func ownersManageWebhooksAndKeysAndSupportMayNot(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await ConsoleTests.owner(server)
            _ = try await ConsoleTests.owner(server, email: "help@example.com", role: .support)
            let support = "redeem_console=\(try await ConsoleTests.signIn(server, email: "help@example.com"))"
            let owner = "redeem_console=\(try await ConsoleTests.signIn(server))"
            let hooks = try await server.send(.get, "/console/apps/\(app.id)/webhooks", key: nil, headers: [.cookie: support])
            #expect(hooks.status == 200)
            #expect(!hooks.body.contains("Add an endpoint"), "support sees no owner forms")
            let refused = try await ConsoleTests.post(
                server, "/console/apps/\(app.id)/webhooks", ["csrf": try Self.csrf(hooks), "url": "https://hooks.example.com/x"], cookie: support)
            #expect(refused.status == 403)
            #expect(try await server.send(.get, "/console/apps/\(app.id)/keys", key: nil, headers: [.cookie: support]).status == 403)

            let ownerHooks = try await server.send(.get, "/console/apps/\(app.id)/webhooks", key: nil, headers: [.cookie: owner])
            let token = try Self.csrf(ownerHooks)
            let added = try await ConsoleTests.post(
                server, "/console/apps/\(app.id)/webhooks", ["csrf": token, "url": "https://hooks.example.com/in"], cookie: owner)
            #expect(added.status == 201)
            #expect(added.headers[.cacheControl] == "no-store")
            let secret = String(try #require(added.body.firstMatch(of: /whsec_[A-Za-z0-9_-]+/)?.output))
            let listed = try await server.send(.get, "/console/apps/\(app.id)/webhooks", key: nil, headers: [.cookie: owner])
            #expect(listed.body.contains("https://hooks.example.com/in") && !listed.body.contains(secret), "the secret is shown once")
            #expect(try await ConsoleTests.post(server, "/console/apps/\(app.id)/webhooks/test", ["csrf": token], cookie: owner).status == 303)
            let deliveries = try await server.deps.store.webhookDeliveries(appID: app.id, limit: 10)
            #expect(deliveries.map(\.eventType) == ["TEST"])
            let replayed = try await ConsoleTests.post(
                server, "/console/apps/\(app.id)/webhooks/deliveries/\(deliveries[0].id)/replay", ["csrf": token], cookie: owner)
            #expect(replayed.headers[.location] == "/console/apps/\(app.id)/webhooks?notice=replayed")
            let log = try await server.send(.get, "/console/apps/\(app.id)/webhooks", key: nil, headers: [.cookie: owner])
            #expect(log.body.contains("<code>TEST</code>"))

            let keys = try await server.send(.get, "/console/apps/\(app.id)/keys", key: nil, headers: [.cookie: owner])
            #expect(keys.status == 200)
            let created = try await ConsoleTests.post(
                server, "/console/apps/\(app.id)/keys", ["csrf": token, "kind": "secret", "label": "billing server"], cookie: owner)
            #expect(created.status == 201)
            let plaintext = String(try #require(created.body.firstMatch(of: /rdm_sk_[A-Za-z0-9_-]+/)?.output))
            #expect(try await server.send(.get, "/admin/v1/apps/\(app.id)/products", key: plaintext).status == 200)
            let key = try #require(try await server.deps.store.keys(appID: app.id).first { $0.label == "billing server" })
            let unconfirmed = try await ConsoleTests.post(server, "/console/apps/\(app.id)/keys/\(key.id)/revoke", ["csrf": token], cookie: owner)
            #expect(unconfirmed.status == 400)
            let revoked = try await ConsoleTests.post(
                server, "/console/apps/\(app.id)/keys/\(key.id)/revoke", ["csrf": token, "confirm": "yes"], cookie: owner)
            #expect(revoked.status == 303)
            #expect(try await server.send(.get, "/admin/v1/apps/\(app.id)/products", key: plaintext).status == 401)
            let actions = Set(
                try await server.deps.store.auditLog(appID: app.id, limit: 50).filter { $0.actor == "operator:owner@example.com" }.map(\.action))
            #expect(actions == ["webhook.create", "webhook.test", "webhook.replay", "key.create", "key.revoke"])
        }
    }

    /// A double click on "Add endpoint" adds one endpoint, and every answer shows its one signing secret: a second
    /// endpoint would get every event twice, half of them signed with a secret nobody saw.
    @Test(arguments: TestDatabases.available)
    func submitsOfOneEndpointFormAddOneEndpoint(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let owner = try await ConsoleTests.signedInOwner(server)
            let page = try await server.send(.get, "/console/apps/\(app.id)/webhooks", key: nil, headers: [.cookie: owner])
            let formID = try ConsoleTests.formID(page)
            let fields = ["csrf": try Self.csrf(page), "form_id": formID, "url": "https://hooks.example.com/once", "authorization": "Bearer t"]
            let path = "/console/apps/\(app.id)/webhooks"
            let replies = try await ConsoleTests.postAtOnce(server, path, fields, cookie: owner)
            let secrets = try replies.map { reply in
                #expect(reply.status == 201, "\(reply.body)")
                return String(try #require(reply.body.firstMatch(of: /whsec_[A-Za-z0-9_-]+/)?.output))
            }
            let endpoints = try await server.deps.store.webhookEndpoints(appID: app.id)
            #expect(endpoints.count == 1)
            #expect(Set(secrets) == [endpoints.first?.signingSecret ?? "none"])
            let audit = try await server.deps.store.auditLog(appID: app.id, limit: 50).filter { $0.action == "webhook.create" }
            #expect(audit.count == 1)
            var other = fields
            other["url"] = "https://hooks.example.com/other"
            let refused = try await ConsoleTests.post(server, path, other, cookie: owner)
            #expect(refused.status == 409 && refused.body.contains("This form already added https://hooks.example.com/once"), "\(refused.body)")
            other["form_id"] = "bad id"
            #expect(try await ConsoleTests.post(server, path, other, cookie: owner).status == 400)
            // A new page's form adds another.
            let next = try await server.send(.get, path, key: nil, headers: [.cookie: owner])
            other["form_id"] = try ConsoleTests.formID(next)
            #expect(try await ConsoleTests.post(server, path, other, cookie: owner).status == 201)
            #expect(try await server.deps.store.webhookEndpoints(appID: app.id).count == 2)
        }
    }

    @Test(arguments: TestDatabases.available)
    func ownersChangeSettingsAndTheWarningsFollow(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            _ = try await ConsoleTests.owner(server)
            _ = try await ConsoleTests.owner(server, email: "help@example.com", role: .support)
            let owner = "redeem_console=\(try await ConsoleTests.signIn(server))"
            let page = try await server.send(.get, "/console/apps/\(app.id)/settings", key: nil, headers: [.cookie: owner])
            #expect(page.status == 200)
            #expect(page.body.contains("the app has no icon"))
            #expect(page.body.contains("no App Store or Play Store link"))
            // Choices in words, their values as the API names them.
            #expect(page.body.contains(#"<option value="transfer_if_no_active_subscription">Move it only if its owner has no active subscription"#))
            #expect(!page.body.contains(">transfer if no active subscription<"))
            let token = try Self.csrf(page)
            var fields = [
                "csrf": token, "name": "Renamed App", "icon_url": "https://cdn.example.com/icon.png",
                "app_store_url": "https://apps.apple.com/app/id123", "play_store_url": "", "support_email": "help@example.com",
                "ios_team_id": "ABCDE12345", "ios_bundle_id": "com.example.app", "android_package_name": "", "android_cert_fingerprints": "",
                "redemption_link_policy": "enabled", "redemption_link_lifetime_minutes": "90", "restore_behavior": "transfer",
                "after_purchase": "hosted", "after_purchase_url": "", "checkout_tax": "stripe_tax", "allow_promotion_codes": "yes",
            ]
            let saved = try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: owner)
            #expect(saved.status == 303, "\(saved.body)")
            var stored = try await server.deps.store.app(id: app.id)
            #expect(stored.checkoutTax == .stripeTax && stored.allowPromotionCodes)
            fields["allow_promotion_codes"] = nil  // An unticked box sends nothing: off.
            _ = try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: owner)
            stored = try await server.deps.store.app(id: app.id)
            #expect(!stored.allowPromotionCodes)
            #expect(stored.name == "Renamed App" && stored.iconURL == "https://cdn.example.com/icon.png" && stored.iosTeamID == "ABCDE12345")
            #expect(stored.redemptionLinkLifetimeSeconds == 5400)
            let after = try await server.send(.get, "/console/apps/\(app.id)/settings?notice=settings-saved", key: nil, headers: [.cookie: owner])
            #expect(!after.body.contains("the app has no icon") && !after.body.contains("no App Store or Play Store link"))
            #expect(after.body.contains("/.well-known/apple-app-site-association"))
            fields["icon_url"] = "http://insecure.example.com/icon.png"
            let refused = try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: owner)
            #expect(refused.status == 422)
            #expect(refused.body.contains("Icon URL must be an absolute https URL"))
            #expect(refused.body.contains("http://insecure.example.com/icon.png"), "the form keeps what was typed")
            #expect(try await server.deps.store.app(id: app.id).iconURL == "https://cdn.example.com/icon.png", "nothing saved")
            // The lifetime field is in minutes, and so is its refusal.
            fields["icon_url"] = "https://cdn.example.com/icon.png"
            fields["redemption_link_lifetime_minutes"] = "20000"
            let tooLong = try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: owner)
            #expect(tooLong.status == 422 && tooLong.body.contains("Link lifetime must be between 1 and 10,080 minutes (7 days)."))
            #expect(tooLong.body.contains(#"value="20000""#) && !tooLong.body.contains("604800"))
            // Without Stripe the setup checks say what production links do then.
            #expect(tooLong.body.contains("Stripe is not configured on this server"))
            fields["redemption_link_lifetime_minutes"] = "90"
            fields["icon_url"] = "http://insecure.example.com/icon.png"
            let audit = try await server.deps.store.auditLog(appID: app.id, limit: 10).filter { $0.action == "app.update" }
            #expect(audit.map(\.actor) == ["operator:owner@example.com", "operator:owner@example.com"], "two saves, one refusal")

            let support = "redeem_console=\(try await ConsoleTests.signIn(server, email: "help@example.com"))"
            let readOnly = try await server.send(.get, "/console/apps/\(app.id)/settings", key: nil, headers: [.cookie: support])
            #expect(readOnly.body.contains("<fieldset disabled>") && !readOnly.body.contains("Save settings"))
            #expect(try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: support).status == 403)
        }
    }

    @Test(arguments: TestDatabases.available)
    func ownersAddAndEditProducts(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            _ = try await ConsoleTests.owner(server)
            _ = try await ConsoleTests.owner(server, email: "help@example.com", role: .support)
            let owner = "redeem_console=\(try await ConsoleTests.signIn(server))"
            let page = try await server.send(.get, "/console/apps/\(app.id)/products", key: nil, headers: [.cookie: owner])
            #expect(page.status == 200)
            let token = try Self.csrf(page)
            let product = [
                "csrf": token, "id": "yearly", "type": "subscription", "period": "P1Y", "price_amount": "29.99", "price_currency": "usd",
                "entitlements": "pro, cloud", "display_name": "Pro yearly",
            ]
            let added = try await ConsoleTests.post(server, "/console/apps/\(app.id)/products", product, cookie: owner)
            #expect(added.headers[.location] == "/console/apps/\(app.id)/products?notice=product-saved", "\(added.body)")
            let listed = try await server.send(.get, "/console/apps/\(app.id)/products", key: nil, headers: [.cookie: owner])
            #expect(listed.body.contains("29.99 USD per year"))
            #expect(listed.body.contains("<code>cloud</code>"), "new entitlements are created with the product")
            #expect(!listed.body.contains("No price: its purchase link cannot sell it"), "a priced product needs no warning")
            var unpriced = product
            unpriced["id"] = "weekly_free"
            unpriced["price_amount"] = ""
            #expect(try await ConsoleTests.post(server, "/console/apps/\(app.id)/products", unpriced, cookie: owner).status == 303)
            let warned = try await server.send(.get, "/console/apps/\(app.id)/products", key: nil, headers: [.cookie: owner])
            #expect(warned.body.components(separatedBy: "No price: its purchase link cannot sell it").count == 2, "only the unpriced one")
            let again = try await ConsoleTests.post(server, "/console/apps/\(app.id)/products", product, cookie: owner)
            #expect(again.status == 409)
            #expect(again.body.contains("product &#39;yearly&#39; already exists"), "escaped as HTML")
            var bad = product
            bad["id"] = "weekly"
            bad["price_amount"] = "four"
            let refused = try await ConsoleTests.post(server, "/console/apps/\(app.id)/products", bad, cookie: owner)
            #expect(refused.status == 422)
            #expect(refused.body.contains("price must be an amount such as 4.99"))
            let edited = try await ConsoleTests.post(
                server, "/console/apps/\(app.id)/products/yearly",
                ["csrf": token, "price_amount": "19.99", "price_currency": "USD", "entitlements": "pro", "display_name": "Pro"], cookie: owner)
            #expect(edited.status == 303)
            let stored = try await server.deps.store.product(appID: app.id, id: "yearly")
            #expect(stored.price == Price(amountMicros: 19_990_000, currency: "USD") && stored.entitlements == ["pro"])
            let entitlement = try await ConsoleTests.post(
                server, "/console/apps/\(app.id)/entitlements", ["csrf": token, "id": "themes", "display_name": "Themes"], cookie: owner)
            #expect(entitlement.headers[.location] == "/console/apps/\(app.id)/products?notice=entitlement-saved")
            let actions = try await server.deps.store.auditLog(appID: app.id, limit: 20).filter { $0.actor == "operator:owner@example.com" }
            #expect(Set(actions.map(\.action)) == ["product.create", "product.update", "entitlement.create"])
            let support = "redeem_console=\(try await ConsoleTests.signIn(server, email: "help@example.com"))"
            let readOnly = try await server.send(.get, "/console/apps/\(app.id)/products", key: nil, headers: [.cookie: support])
            #expect(readOnly.status == 200 && !readOnly.body.contains("Add a product"))
            #expect(try await ConsoleTests.post(server, "/console/apps/\(app.id)/products", product, cookie: support).status == 403)
        }
    }
}
