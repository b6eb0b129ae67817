import Foundation
import HTTPTypes
import Logging
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// The console's offers page: offers, batches generated in the background and downloaded once, custom codes switched
/// off and on, the quota and the report. What the page does is checked where it counts: in the SDK's redemption route.
@Suite(.timeLimit(.minutes(5))) struct ConsoleOffersTests {
    static func page(_ server: TestServer, _ appID: String, cookie: String) async throws -> TestServer.Reply {
        try await server.send(.get, "/console/apps/\(appID)/offers", key: nil, headers: [.cookie: cookie])
    }

    /// A form's own ID names what it creates: the same offer or code form sent several times (a double click, or a
    /// resubmit after a reload without the page's script) creates one and lands every submit on it; another form with
    /// the same name is still refused.
    @Test(arguments: TestDatabases.available)
    func theSameOfferOrCodeFormSentAgainCreatesOnce(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let owner = try await ConsoleTests.signedInOwner(server)
            let page = try await Self.page(server, app.id, cookie: owner)
            let token = try ConsoleOperationsTests.csrf(page)
            func formHasItsOwnID(_ page: TestServer.Reply, _ action: String) throws -> Bool {
                let form = try #require(page.body.firstRange(of: #"action="/console/apps/\#(app.id)/\#(action)">"#))
                return page.body[form.upperBound...].prefix(200).contains(#"name="form_id" value=""#)
            }
            #expect(try formHasItsOwnID(page, "offers"))
            let offer = [
                "csrf": token, "form_id": "offer-form-0001-abcdef", "product_id": "monthly", "reference_name": "Spring",
                "payment_mode": "free_trial", "duration": "P1M", "periods": "1", "eligible_new": "yes",
            ]
            let offers = try await ConsoleTests.postAtOnce(server, "/console/apps/\(app.id)/offers", offer, cookie: owner)
            #expect(offers.map(\.status) == [303, 303, 303, 303], "\(offers.map(\.body))")
            #expect(offers.allSatisfy { $0.headers[.location] == "/console/apps/\(app.id)/offers?notice=offer-saved" })
            let made = try await server.deps.store.offers(appID: app.id, productID: nil)
            #expect(made.map(\.referenceName) == ["Spring"])
            var other = offer
            other["form_id"] = "offer-form-0002-abcdef"
            let another = try await ConsoleTests.post(server, "/console/apps/\(app.id)/offers", other, cookie: owner)
            #expect(another.status == 409 && another.body.contains("already has an offer named"), "\(another.body)")

            // The code form shows once there is an active offer.
            #expect(try formHasItsOwnID(try await Self.page(server, app.id, cookie: owner), "custom-codes"))
            let code = [
                "csrf": token, "form_id": "code-form-0001-abcdef", "offer_id": try #require(made.first?.id), "code": "spring-26",
                "max_redemptions": "100",
            ]
            let codes = try await ConsoleTests.postAtOnce(server, "/console/apps/\(app.id)/custom-codes", code, cookie: owner)
            #expect(codes.map(\.status) == [303, 303, 303, 303], "\(codes.map(\.body))")
            #expect(codes.allSatisfy { $0.headers[.location] == "/console/apps/\(app.id)/offers?notice=custom-code-saved" })
            #expect(try await server.deps.store.customCodes(appID: app.id, offerID: nil).map(\.code) == ["SPRING26"])
            // A refused form comes back with its own ID, so its corrected submit is still the one form.
            var refused = code
            refused["form_id"] = "code-form-0002-abcdef"
            refused["max_redemptions"] = "none"
            let again = try await ConsoleTests.post(server, "/console/apps/\(app.id)/custom-codes", refused, cookie: owner)
            #expect(again.status == 422 && again.body.contains(#"name="form_id" value="code-form-0002-abcdef""#), "\(again.body)")
        }
    }

    @Test(arguments: TestDatabases.available)
    func ownersCreateOffersAndCustomCodesAndSwitchThemOff(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await ConsoleTests.owner(server)
            _ = try await ConsoleTests.owner(server, email: "help@example.com", role: .support)
            let owner = "redeem_console=\(try await ConsoleTests.signIn(server))"
            let token = try ConsoleOperationsTests.csrf(try await Self.page(server, app.id, cookie: owner))
            let offer = [
                "csrf": token, "product_id": "monthly", "reference_name": "Spring", "payment_mode": "free_trial", "duration": "P1M",
                "periods": "1", "eligible_new": "yes",
            ]
            let created = try await ConsoleTests.post(server, "/console/apps/\(app.id)/offers", offer, cookie: owner)
            #expect(created.headers[.location] == "/console/apps/\(app.id)/offers?notice=offer-saved", "\(created.body)")
            let listed = try await Self.page(server, app.id, cookie: owner)
            #expect(listed.body.contains("1 month free"), "terms in words")
            #expect(listed.body.contains("monthly: 1 of 10 active offers"))
            let again = try await ConsoleTests.post(server, "/console/apps/\(app.id)/offers", offer, cookie: owner)
            #expect(again.status == 409 && again.body.contains("already has an offer named &#39;Spring&#39;"), "\(again.body)")
            var bad = offer
            bad["reference_name"] = "Other"
            bad["payment_mode"] = "gratis"
            let refused = try await ConsoleTests.post(server, "/console/apps/\(app.id)/offers", bad, cookie: owner)
            #expect(refused.status == 422 && refused.body.contains("Payment mode: must be one of"))
            // The refused form opens again with what was typed, and the refusal names the field by its label.
            var typo = offer
            typo["reference_name"] = "Autumn"
            typo["periods"] = "two"
            typo["eligible_existing"] = "yes"
            let kept = try await ConsoleTests.post(server, "/console/apps/\(app.id)/offers", typo, cookie: owner)
            #expect(kept.status == 422 && kept.body.contains("Periods: must be a whole number."), "\(kept.body)")
            #expect(kept.body.contains(#"value="Autumn""#) && kept.body.contains(#"name="periods" inputmode="numeric" value="two""#))
            #expect(kept.body.contains(#"<details class="section" open>"#) && kept.body.contains(#"name="eligible_existing" value="yes" checked"#))
            #expect(kept.body.contains(#"<option value="free_trial" selected>Free trial</option>"#))
            // An offer priced in another currency than its product is flagged.
            _ = try await server.send(
                .patch, "/admin/v1/apps/\(app.id)/products/monthly", key: app.secret, json: #"{"price": {"amount": "4.99", "currency": "USD"}}"#)
            var euros = offer
            euros["reference_name"] = "Euro intro"
            euros["payment_mode"] = "pay_up_front"
            euros["price_amount"] = "1.99"
            euros["price_currency"] = "EUR"
            let priced = try await ConsoleTests.post(server, "/console/apps/\(app.id)/offers", euros, cookie: owner)
            #expect(priced.status == 303, "\(priced.body)")
            #expect(
                try await Self.page(server, app.id, cookie: owner).body.contains("Priced in EUR while monthly is in USD: buyers see two currencies."))

            let offerID = try #require(try await server.deps.store.offers(appID: app.id, productID: nil).first?.id)
            let code = ["csrf": token, "offer_id": offerID, "code": "spring-26", "max_redemptions": "100"]
            let made = try await ConsoleTests.post(server, "/console/apps/\(app.id)/custom-codes", code, cookie: owner)
            #expect(made.headers[.location] == "/console/apps/\(app.id)/offers?notice=custom-code-saved", "\(made.body)")
            #expect(try await OfferCodeAPITests.redeem(server, app, user: "alice", code: "SPRING26").status == 200)
            #expect(try await Self.page(server, app.id, cookie: owner).body.contains("1 of 100"), "redemptions so far")

            let codeID = try #require(try await server.deps.store.customCodes(appID: app.id, offerID: nil).first?.id)
            let off = try await ConsoleTests.post(server, "/console/apps/\(app.id)/custom-codes/\(codeID)/active", ["csrf": token], cookie: owner)
            #expect(off.headers[.location] == "/console/apps/\(app.id)/offers?notice=switched-off")
            let switchedOff = try await OfferCodeAPITests.redeem(server, app, user: "bob", code: "SPRING26")
            #expect(switchedOff.status == 403 && switchedOff.code == 7862, "switched off: \(switchedOff.body)")
            let on = try await ConsoleTests.post(
                server, "/console/apps/\(app.id)/custom-codes/\(codeID)/active", ["csrf": token, "active": "yes"], cookie: owner)
            #expect(on.status == 303)
            #expect(try await OfferCodeAPITests.redeem(server, app, user: "bob", code: "SPRING26").status == 200, "on again")

            let report = try await server.send(
                .get, "/console/apps/\(app.id)/offers/report.csv?offer=\(offerID)", key: nil, headers: [.cookie: owner])
            #expect(report.headers[.contentDisposition]?.hasPrefix("attachment") == true)
            let lines = report.body.split(separator: "\n")
            #expect(lines.count == 3 && lines[0] == OfferRedemptionRecord.csvHeader, "a header and both redemptions")
            #expect(try await Self.page(server, app.id, cookie: owner).body.contains("2 of 1,000,000 redemptions used in 2026-Q2"))

            let deactivated = try await ConsoleTests.post(server, "/console/apps/\(app.id)/offers/\(offerID)/active", ["csrf": token], cookie: owner)
            #expect(deactivated.status == 303)
            #expect(try await server.deps.store.offer(appID: app.id, id: offerID).isActive == false)
            let actions = try await server.deps.store.auditLog(appID: app.id, limit: 20).filter { $0.actor == "operator:owner@example.com" }
            #expect(
                Set(actions.map(\.action)) == [
                    "offer.create", "offer.deactivate", "custom_code.create", "custom_code.deactivate", "custom_code.activate",
                ])

            let support = "redeem_console=\(try await ConsoleTests.signIn(server, email: "help@example.com"))"
            let readOnly = try await Self.page(server, app.id, cookie: support)
            #expect(readOnly.status == 200 && !readOnly.body.contains("Create an offer"))
            let supportToken = try ConsoleOperationsTests.csrf(readOnly)
            var theirs = offer
            theirs["csrf"] = supportToken
            #expect(try await ConsoleTests.post(server, "/console/apps/\(app.id)/offers", theirs, cookie: support).status == 403)
        }
    }

    @Test(arguments: TestDatabases.available)
    func aBatchIsGeneratedWithProgressAndItsCodesAreHandedOverOnce(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let offerID = try await OfferCodeAPITests.offer(server, app, OfferCodeAPITests.trial)
            _ = try await ConsoleTests.owner(server)
            _ = try await ConsoleTests.owner(server, email: "other@example.com")
            let owner = "redeem_console=\(try await ConsoleTests.signIn(server))"
            let token = try ConsoleOperationsTests.csrf(try await Self.page(server, app.id, cookie: owner))
            let tooMany = try await ConsoleTests.post(
                server, "/console/apps/\(app.id)/batches", ["csrf": token, "offer_id": offerID, "count": "1000001", "expires_on": "2026-09-01"],
                cookie: owner)
            #expect(tooMany.status == 422 && tooMany.body.contains("How many: must be between 1 and 1000000"))
            let started = try await ConsoleTests.post(
                server, "/console/apps/\(app.id)/batches", ["csrf": token, "offer_id": offerID, "count": "45,000", "expires_on": "2026-09-01"],
                cookie: owner)
            let jobPath = try #require(started.headers[.location])
            #expect(started.status == 303 && jobPath.hasPrefix("/console/apps/\(app.id)/batches/jobs/"))
            var job = try await server.send(.get, jobPath, key: nil, headers: [.cookie: owner])
            // Ends when the job is done, however long that takes here; the suite's time limit is the hang guard.
            while !job.body.contains("Download the CSV") {
                #expect(job.status == 200)
                try await Task.sleep(for: .milliseconds(50))
                job = try await server.send(.get, jobPath, key: nil, headers: [.cookie: owner])
            }
            #expect(job.body.contains("A batch of 45,000 codes") && job.body.contains("Download the CSV"), "\(job.body)")

            // Only the operator who asked sees the job or takes its codes.
            let other = "redeem_console=\(try await ConsoleTests.signIn(server, email: "other@example.com"))"
            #expect(try await server.send(.get, jobPath, key: nil, headers: [.cookie: other]).status == 404)
            let otherToken = try ConsoleOperationsTests.csrf(try await Self.page(server, app.id, cookie: other))
            #expect(try await ConsoleTests.post(server, jobPath + "/download", ["csrf": otherToken], cookie: other).status == 409)

            let download = try await ConsoleTests.post(server, jobPath + "/download", ["csrf": token], cookie: owner)
            #expect(download.status == 200 && download.headers[.cacheControl] == "no-store")
            #expect(download.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"codes-batch_") == true)
            let rows = download.body.split(separator: "\n")
            #expect(rows.count == 45_001 && rows[0] == "code,redemption_url")
            let code = String(try #require(rows.last?.split(separator: ",").first))
            #expect(Set(rows.dropFirst()).count == 45_000, "every code once, across the pieces the download is written in")
            #expect(try await OfferCodeAPITests.redeem(server, app, user: "carol", code: code).status == 200, "a downloaded code redeems")
            #expect(try await ConsoleTests.post(server, jobPath + "/download", ["csrf": token], cookie: owner).status == 409, "only once")
            #expect(try await server.send(.get, jobPath, key: nil, headers: [.cookie: owner]).body.contains("Downloaded"))

            let batch = try #require(try await server.deps.store.codeBatches(appID: app.id, offerID: nil).first)
            #expect(batch.count == 45_000 && batch.redeemed == 1)
            let entries = try await server.deps.store.auditLog(appID: app.id, limit: 20)
            #expect(entries.contains { $0.action == "code_batch.create" && $0.actor == "operator:owner@example.com" })
            let off = try await ConsoleTests.post(server, "/console/apps/\(app.id)/batches/\(batch.id)/active", ["csrf": token], cookie: owner)
            #expect(off.status == 303)
            let second = String(try #require(rows.dropLast().last?.split(separator: ",").first))
            let deactivated = try await OfferCodeAPITests.redeem(server, app, user: "dave", code: second)
            #expect(deactivated.status == 403 && deactivated.code == 7862, "deactivated batch: \(deactivated.body)")
        }
    }
}

/// Apps made in the console: their keys shown once and working, refused values kept in the form.
@Suite struct ConsoleAppsTests {
    @Test(arguments: TestDatabases.available)
    func ownersCreateAppsAndGetTheirKeysOnce(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            _ = try await ConsoleTests.owner(server)
            _ = try await ConsoleTests.owner(server, email: "help@example.com", role: .support)
            let owner = "redeem_console=\(try await ConsoleTests.signIn(server))"
            let home = try await server.send(.get, "/console", key: nil, headers: [.cookie: owner])
            #expect(home.body.contains("/console/new-app"), "with no apps, the console offers to create one")
            let form = try await server.send(.get, "/console/new-app", key: nil, headers: [.cookie: owner])
            let token = try ConsoleOperationsTests.csrf(form)
            let bad = try await ConsoleTests.post(
                server, "/console/new-app", ["csrf": token, "name": "Kitchen", "icon_url": "ftp://x/icon.png"], cookie: owner)
            #expect(bad.status == 422 && bad.body.contains("Icon URL") && bad.body.contains("value=\"Kitchen\""), "\(bad.body)")
            let made = try await ConsoleTests.post(
                server, "/console/new-app",
                ["csrf": token, "name": "Kitchen", "icon_url": "https://example.com/icon.png", "app_store_url": "https://apps.apple.com/app/id1"],
                cookie: owner)
            #expect(made.status == 201 && made.headers[.cacheControl] == "no-store")
            let secret = String(try #require(made.body.firstMatch(of: /(rdm_sk_[A-Za-z0-9_-]+)/)?.1))
            let apps = try await server.deps.store.apps()
            let app = try #require(apps.first { $0.name == "Kitchen" })
            #expect(app.iconURL == "https://example.com/icon.png" && app.appStoreURL == "https://apps.apple.com/app/id1")
            #expect(try await server.send(.get, "/admin/v1/apps/\(app.id)/products", key: secret).status == 200, "the secret key works")
            let entries = try await server.deps.store.auditLog(appID: app.id, limit: 5)
            #expect(entries.contains { $0.action == "app.create" && $0.actor == "operator:owner@example.com" })
            let support = "redeem_console=\(try await ConsoleTests.signIn(server, email: "help@example.com"))"
            #expect(try await server.send(.get, "/console/new-app", key: nil, headers: [.cookie: support]).status == 403)
        }
    }
}

/// When each key was last used: gathered in memory, written in batches, shown to operators and in the admin API.
@Suite struct KeyUseTests {
    @Test(arguments: TestDatabases.available)
    func aKeysLastUseIsRecordedAndShown(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let owner = try await ConsoleTests.signedInOwner(server)
            let writer = KeyUseWriter(cache: server.deps.keyCache, logger: Logger(label: "test"))
            await writer.flush()  // The key that created the app.
            let before = try await server.deps.store.keys(appID: app.id)
            #expect(before.first { $0.kind == .publicSandbox }?.lastUsedAt == nil, "not used yet")
            #expect(try await server.send(.get, "/v1/subscribers/someone", key: app.publicSandbox).status == 200)
            #expect(try await server.deps.store.keys(appID: app.id).first { $0.kind == .publicSandbox }?.lastUsedAt == nil, "written in batches")
            await writer.flush()
            let listed = try await server.send(.get, "/admin/v1/apps/\(app.id)/keys", key: app.secret)
            let keys = try #require(try listed.object()["keys"] as? [[String: Any]])
            let sandbox = try #require(keys.first { $0["kind"] as? String == "public_sandbox" })
            #expect(sandbox["last_used_at"] as? String != nil, "\(sandbox)")
            let page = try await server.send(.get, "/console/apps/\(app.id)/keys", key: nil, headers: [.cookie: owner])
            #expect(page.body.contains("not yet") == keys.contains { $0["last_used_at"] == nil })
            #expect(page.body.components(separatedBy: "not yet").count - 1 == keys.filter { $0["last_used_at"] == nil }.count)

            // An older use never replaces a newer one (two instances flushing in any order).
            let id = try #require(sandbox["id"] as? String)
            let stored = try #require(try await server.deps.store.keys(appID: app.id).first { $0.id == id }?.lastUsedAt)
            try await server.deps.store.recordKeyUses([id: stored.addingTimeInterval(-3600)])
            #expect(try await server.deps.store.keys(appID: app.id).first { $0.id == id }?.lastUsedAt == stored)
        }
    }
}

/// The settings page's live preview: the real buyer pages with the typed values, framed only by the console.
@Suite struct ConsolePreviewTests {
    @Test(arguments: TestDatabases.available)
    func thePreviewShowsTypedValuesWithTheRealPages(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp(#"{"name": "Old Name", "icon_url": "https://example.com/old.png"}"#)
            let owner = try await ConsoleTests.signedInOwner(server)
            let settings = try await server.send(.get, "/console/apps/\(app.id)/settings", key: nil, headers: [.cookie: owner])
            #expect(settings.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("frame-src 'self'") == true)
            #expect(settings.body.contains("src=\"/console/apps/\(app.id)/preview/success\""))

            let path =
                "/console/apps/\(app.id)/preview/success?name=New%20Name&icon_url=ftp%3A%2F%2Fbad&app_store_url=https%3A%2F%2Fapps.apple.com%2Fapp%2Fid42"
            let success = try await server.send(.get, path, key: nil, headers: [.cookie: owner])
            #expect(success.status == 200)
            #expect(success.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("frame-ancestors 'self'") == true)
            #expect(success.body.contains("New Name") && !success.body.contains("Old Name"), "the typed name")
            #expect(success.body.contains("https://example.com/old.png"), "a refused icon URL leaves the saved one")
            #expect(success.body.contains("https://apps.apple.com/app/id42"), "the typed store link, as a badge")
            #expect(success.body.contains("$4.99") || success.body.contains("4.99 USD"), "a sample price")
            let link = try await server.send(
                .get, "/console/apps/\(app.id)/preview/link?redemption_link_lifetime_minutes=30", key: nil, headers: [.cookie: owner])
            #expect(link.body.contains("/r/preview") && link.body.contains("30 minutes"))
            #expect(try await server.deps.store.app(id: app.id).name == "Old Name", "a preview saves nothing")
            let anonymous = try await server.send(.get, "/console/apps/\(app.id)/preview/link", key: nil)
            #expect(anonymous.status == 303)
        }
    }
}
