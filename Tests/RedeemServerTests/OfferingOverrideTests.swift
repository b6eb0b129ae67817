import Foundation
import HTTPTypes
import RedeemCore
import RedeemTestSupport
import Testing

/// RevenueCat's offering override (REST API v1, api-v1 "Offerings": `POST /subscribers/{id}/offerings/{offering}/override`
/// and `DELETE /subscribers/{id}/offerings/override`): the app's backend picks one customer's current offering, which
/// that customer's SDK then reads as `current_offering_id`.
@Suite struct OfferingOverrideTests {
    static func current(_ server: TestServer, _ app: CreatedAppKeys, _ user: String, platform: String? = "iOS") async throws -> String? {
        var headers: HTTPFields = [:]
        if let platform { headers[HTTPField.Name("X-Platform")!] = platform }
        let path = "/v1/subscribers/" + RevenueCatFixtures.pathID(user, .android) + "/offerings"
        let reply = try await server.send(.get, path, key: app.publicProduction, headers: headers)
        #expect(reply.status == 200 && RevenueCatDecoding.offeringsProblems(reply.body) == [], "\(reply.body)")
        return try reply.object()["current_offering_id"] as? String
    }

    static func override(_ server: TestServer, _ key: String, _ user: String, _ offering: String) async throws -> TestServer.Reply {
        let path = "/v1/subscribers/" + RevenueCatFixtures.pathID(user, .android) + "/offerings/\(offering)/override"
        return try await server.send(.post, path, key: key)
    }

    static func remove(_ server: TestServer, _ key: String, _ user: String) async throws -> TestServer.Reply {
        try await server.send(.delete, "/v1/subscribers/" + RevenueCatFixtures.pathID(user, .android) + "/offerings/override", key: key)
    }

    @Test(arguments: TestDatabases.available)
    func theOverrideIsThatCustomersCurrentOfferingUntilRemoved(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createRevenueCatApp()
            #expect(try await Self.current(server, app, "user-a") == "main")

            // The secret key only; an unknown offering is a 404, and nothing is set.
            #expect(try await Self.override(server, app.publicProduction, "user-a", "winback").status == 403)
            let unknown = try await Self.override(server, app.secret, "user-a", "nope")
            #expect(unknown.status == 404 && unknown.code == 7004 && unknown.body.contains("nope"), "\(unknown.body)")
            #expect(try await Self.current(server, app, "user-a") == "main")

            let set = try await Self.override(server, app.secret, "user-a", "winback")
            #expect(set.status == 200, "\(set.body)")
            #expect(RevenueCatDecoding.customerInfoProblems(set.body) == [], "\(set.body)")
            #expect(try set.object().value(at: "subscriber.original_app_user_id") as? String == "user-a")
            #expect(try await Self.current(server, app, "user-a") == "winback")
            #expect(try await Self.current(server, app, "user-a", platform: "android") == "winback")
            // Other customers keep the app's own.
            #expect(try await Self.current(server, app, "user-b") == "main")

            // A later override replaces it; removing it (twice: the second changes nothing) gives the app's back.
            #expect(try await Self.override(server, app.secret, "user-a", "main").status == 200)
            #expect(try await Self.current(server, app, "user-a") == "main")
            #expect(try await Self.override(server, app.secret, "user-a", "winback").status == 200)
            #expect(try await Self.remove(server, app.secret, "user-a").status == 200)
            #expect(try await Self.current(server, app, "user-a") == "main")
            #expect(try await Self.remove(server, app.secret, "user-a").status == 200)
            #expect(try await Self.remove(server, app.publicProduction, "user-a").status == 403)

            let actions = try await server.deps.store.database.read {
                try await $0.query("SELECT action, actor FROM audit_log WHERE action LIKE 'offering.override%' ORDER BY id")
            }
            #expect(
                try actions.map { try $0.string("action") }
                    == ["offering.override", "offering.override", "offering.override", "offering.override.remove"],
                "the second removal changed nothing, so it is not audited")
            #expect(try actions.allSatisfy { try $0.string("actor").hasPrefix("key:") })
        }
    }

    @Test(arguments: TestDatabases.available)
    func anOverrideNotShownOnAPlatformOrDeletedLeavesTheAppsOwn(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createRevenueCatApp()
            // `web_pack` has no store identifiers: an offering of it alone is shown on the web only.
            let webOnly = #"{"identifier": "web_only", "packages": [{"identifier": "pack", "product_id": "web_pack"}]}"#
            #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/offerings", key: app.secret, json: webOnly).status == 201)
            #expect(try await Self.override(server, app.secret, "user-w", "web_only").status == 200)
            #expect(try await Self.current(server, app, "user-w", platform: nil) == "web_only")
            #expect(try await Self.current(server, app, "user-w", platform: "iOS") == "main")

            #expect(try await Self.override(server, app.secret, "user-w", "winback").status == 200)
            #expect(try await Self.current(server, app, "user-w") == "winback")
            #expect(try await server.send(.delete, "/admin/v1/apps/\(app.id)/offerings/winback", key: app.secret).status == 204)
            #expect(try await Self.current(server, app, "user-w") == "main")
            let left = try await server.deps.store.database.read { try await $0.query("SELECT customer_id FROM offering_overrides") }
            #expect(left.isEmpty)
        }
    }

    /// Every alias reads it, and a merge keeps the later of the two customers' overrides: `logIn` (statement by
    /// statement) and the first redemption of an anonymous web purchase (one statement on PostgreSQL) both carry the
    /// merged-away customer's override to the survivor.
    @Test(arguments: TestDatabases.available)
    func aliasesReadItAndMergesKeepTheLaterOne(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createRevenueCatApp()
            func anonymous(_ n: Int) -> String { "$RCAnonymousID:\(String(repeating: String(n), count: 32))" }

            // logIn from an anonymous ID that has an override into an existing user that has none: the anonymous
            // customer is merged away, and the override goes with its purchases.
            #expect(try await server.send(.get, "/v1/subscribers/user-1", key: app.publicProduction).status == 200)
            #expect(try await Self.override(server, app.secret, anonymous(1), "winback").status == 200)
            #expect(try await LogInTests.logIn(server, app, from: anonymous(1), to: "user-1").status == 200)
            #expect(try await Self.current(server, app, "user-1") == "winback")
            #expect(try await Self.current(server, app, anonymous(1)) == "winback")

            // Both have one: the later wins, whichever side it is on.
            for (n, user, later) in [(2, "user-2", "main"), (3, "user-3", "winback")] {
                let (first, second) = later == "main" ? ("winback", "main") : ("main", "winback")
                #expect(try await server.send(.get, "/v1/subscribers/\(user)", key: app.publicProduction).status == 200)
                #expect(try await Self.override(server, app.secret, later == "main" ? anonymous(n) : user, first).status == 200)
                clock.advance(by: 1)
                #expect(try await Self.override(server, app.secret, later == "main" ? user : anonymous(n), second).status == 200)
                #expect(try await LogInTests.logIn(server, app, from: anonymous(n), to: user).status == 200)
                #expect(try await Self.current(server, app, user) == later, "\(user)")
            }

            // The first redemption of an anonymous web purchase merges its owner (who has the override) into the
            // redeeming user.
            let bought = try await server.grant(
                app, #"{"app_user_id": "\#(anonymous(4))", "product_id": "pro_monthly", "store": "rc_billing", "is_sandbox": true}"#)
            #expect(try await Self.override(server, app.secret, anonymous(4), "winback").status == 200)
            #expect(try await server.send(.get, "/v1/subscribers/user-4", key: app.publicProduction).status == 200)
            let token = try RedemptionAPITests.token(from: bought)
            #expect(try await RedemptionAPITests.redeem(server, app, user: "user-4", token: token).status == 200)
            #expect(try await Self.current(server, app, "user-4") == "winback")
            #expect(try await Self.current(server, app, anonymous(4)) == "winback")
            // One row per surviving customer: the merged-away customers' rows went with them.
            let rows = try await server.deps.store.database.read {
                try await $0.query("SELECT c.id FROM offering_overrides o JOIN customers c ON c.id = o.customer_id")
            }
            #expect(rows.count == 4)
            #expect(try await server.deps.store.database.read { try await $0.query("SELECT * FROM offering_overrides") }.count == 4)
        }
    }

    /// The customer page says which offering was chosen, with the choice preselected; owners and support choose one
    /// there (the same override, audited under the operator), and the empty choice gives back the app's own.
    @Test(arguments: TestDatabases.available)
    func theCustomerPageShowsAndChoosesTheOverride(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createRevenueCatApp()
            _ = try await ConsoleTests.owner(server)
            _ = try await ConsoleTests.owner(server, email: "help@example.com", role: .support)
            let owner = "redeem_console=\(try await ConsoleTests.signIn(server))"
            let support = "redeem_console=\(try await ConsoleTests.signIn(server, email: "help@example.com"))"
            #expect(try await Self.override(server, app.secret, "user-page", "winback").status == 200)
            let path = try await ConsoleCustomerTests.customerPath(server, appID: app.id, query: "user-page", cookie: owner)
            let page = try await ConsoleCustomerTests.get(server, path, cookie: owner)
            #expect(page.status == 200)
            #expect(
                page.body.contains(
                    #"<span class="muted">Current offering</span> <span class="wrap">winback (chosen on 2026-06-01 00:00:00 UTC)</span>"#),
                "\(page.body)")
            #expect(page.body.contains("Through the API: offering override") && page.body.contains("by an API key"))
            #expect(page.body.contains(#"<option value="">The app&#39;s current offering (main)</option>"#))
            #expect(page.body.contains(#"<option value="winback" selected>winback</option>"#))
            // An offering a store's SDK is not shown says so in the choice.
            let webOnly = #"{"identifier": "web_only", "packages": [{"identifier": "pack", "product_id": "web_pack"}]}"#
            #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/offerings", key: app.secret, json: webOnly).status == 201)
            let withWebOnly = try await ConsoleCustomerTests.get(server, path, cookie: owner)
            #expect(withWebOnly.body.contains(#"<option value="web_only">web_only (not on iOS or Android)</option>"#))

            // The offerings page counts the customers it was chosen for, and deleting it says what happens to them.
            let offerings = try await ConsoleCustomerTests.get(server, "/console/apps/\(app.id)/offerings", cookie: owner)
            #expect(offerings.body.contains("Chosen for 1 customer as their current offering."))
            let winback = try await ConsoleCustomerTests.get(server, "/console/apps/\(app.id)/offerings/winback", cookie: owner)
            #expect(winback.body.contains("and the customers it was chosen for get the app's current offering"))

            // The owner's export carries it.
            let export = try await ConsoleCustomerTests.get(server, path + "/export", cookie: owner)
            #expect(try export.object().value(at: "current_offering.offering_id") as? String == "winback", "\(export.body)")

            // Support chooses another; the SDK reads it; the history names the operator.
            let supportPage = try await ConsoleCustomerTests.get(server, path, cookie: support)
            #expect(supportPage.body.contains("Choose their current offering"))
            let chose = try await ConsoleTests.post(
                server, path + "/offering", ["csrf": try ConsoleOperationsTests.csrf(supportPage), "offering_id": "main"], cookie: support)
            #expect(chose.status == 303, "\(chose.body)")
            #expect(try await Self.current(server, app, "user-page") == "main")
            let after = try await ConsoleCustomerTests.get(server, path, cookie: owner)
            #expect(
                after.body.contains("Support: offering override") && after.body.contains("by help@example.com")
                    && after.body.contains(#"<option value="main" selected>main</option>"#))

            // An unknown offering is refused on a console page; the empty choice removes the override.
            let csrf = try ConsoleOperationsTests.csrf(after)
            let unknown = try await ConsoleTests.post(server, path + "/offering", ["csrf": csrf, "offering_id": "nope"], cookie: owner)
            #expect(unknown.status == 404 && unknown.body.contains("<!doctype html>") && unknown.body.contains("nope"), "\(unknown.body)")
            let reset = try await ConsoleTests.post(server, path + "/offering", ["csrf": csrf, "offering_id": ""], cookie: owner)
            #expect(reset.status == 303)
            let cleared = try await ConsoleCustomerTests.get(server, path, cookie: owner)
            #expect(!cleared.body.contains(#"<span class="muted">Current offering</span>"#))
            #expect(cleared.body.contains(#"<option value="" selected>"#) && cleared.body.contains("Support: offering override remove"))
            // Without the form token, nothing changes.
            let forged = try await ConsoleTests.post(server, path + "/offering", ["offering_id": "winback"], cookie: owner)
            #expect(forged.status == 403)
            #expect(try await Self.current(server, app, "user-page") == "main")
        }
    }

    /// The admin API's `…/customers/{id}/offering` (and `redeem customers offering --server`): the same override, read,
    /// chosen and removed with an admin key or the app's secret key, by any alias.
    @Test(arguments: TestDatabases.available)
    func theAdminAPIReadsChoosesAndRemovesIt(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createRevenueCatApp()
            let other = try await server.createRevenueCatApp()
            let path = "/admin/v1/apps/\(app.id)/customers/user-api/offering"
            func chosen(_ reply: TestServer.Reply) throws -> String? { try reply.object()["offering_id"] as? String }

            let none = try await server.send(.get, path, key: server.adminKey)
            #expect(try none.status == 200 && chosen(none) == nil && none.object()["chosen_at"] == nil, "\(none.body)")

            let set = try await server.send(.put, path, key: app.secret, json: #"{"offering_id": "winback"}"#)
            #expect(try set.status == 200 && chosen(set) == "winback", "\(set.body)")
            #expect(try (set.object()["chosen_at"] as? String)?.hasPrefix("2026-06-01T00:00:00") == true, "\(set.body)")
            #expect(try await Self.current(server, app, "user-api") == "winback")
            let read = try await server.send(.get, path, key: server.adminKey)
            #expect(try chosen(read) == "winback" && read.body == set.body, "\(read.body)")
            // Choosing it again a day later changes nothing: it was chosen when it was first chosen, and is audited once.
            clock.advance(by: 86_400)
            let again = try await server.send(.put, path, key: server.adminKey, json: #"{"offering_id": "winback"}"#)
            #expect(again.status == 200 && again.body == set.body, "\(again.body)")

            // Refused, and nothing changed: an unknown offering, an empty one, no body, another app's key, an unknown app.
            let unknown = try await server.send(.put, path, key: server.adminKey, json: #"{"offering_id": "nope"}"#)
            #expect(unknown.status == 404 && unknown.body.contains("nope"), "\(unknown.body)")
            let empty = try await server.send(.put, path, key: server.adminKey, json: #"{"offering_id": ""}"#)
            #expect(empty.status == 400 && empty.body.contains("offering_id"), "\(empty.body)")
            #expect(try await server.send(.put, path, key: server.adminKey).status == 400)
            #expect(try await server.send(.put, path, key: other.secret, json: #"{"offering_id": "main"}"#).status == 403)
            #expect(try await server.send(.delete, path, key: app.publicProduction).status == 403)
            #expect(try await server.send(.get, "/admin/v1/apps/app_nope/customers/user-api/offering", key: server.adminKey).status == 404)
            #expect(try await Self.current(server, app, "user-api") == "winback")

            let removed = try await server.send(.delete, path, key: server.adminKey)
            #expect(try removed.status == 200 && chosen(removed) == nil, "\(removed.body)")
            #expect(try await Self.current(server, app, "user-api") == "main")
            let actions = try await server.deps.store.database.read {
                try await $0.query("SELECT action FROM audit_log WHERE action LIKE 'offering.override%' ORDER BY id")
            }
            #expect(try actions.map { try $0.string("action") } == ["offering.override", "offering.override.remove"])
        }
    }
}
