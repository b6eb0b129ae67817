import Foundation
import HTTPTypes
import RedeemCore
import RedeemStore
import RedeemTestSupport
import Testing

/// The console's Customers tab and customer page: the list of recent customers with its filters, the page centred on
/// the person with one history, and the owner's export and erasure (refused to support, confirmed, audited).
@Suite struct ConsoleCustomerTests {
    static func get(_ server: TestServer, _ path: String, cookie: String) async throws -> TestServer.Reply {
        try await server.send(.get, path, key: nil, headers: [.cookie: cookie])
    }

    static func customerPath(_ server: TestServer, appID: String, query: String, cookie: String) async throws -> String {
        let found = try await get(server, "/console/apps/\(appID)?q=\(query)", cookie: cookie)
        return String(try #require(found.body.firstMatch(of: /href="(\/console\/apps\/[^"]+\/customers\/cus_[^"]+)"/)?.1))
    }

    /// Each purchase's hint says where its term stands (`PurchaseTerm`): a refund as a refund, a grant as ending, a
    /// revoked grant as revoked (not as a grant that ran out), a purchase paid elsewhere as the store's to renew, one
    /// bought here as renewing.
    @Test(arguments: TestDatabases.available)
    func eachPurchaseSaysWhereItsTermStands(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let owner = try await ConsoleTests.signedInOwner(server)
            var ids: [String: String] = [:]
            for (name, body) in [
                ("elsewhere", #"{"app_user_id": "terms", "product_id": "monthly", "language": "zh-TW"}"#),
                ("here", #"{"app_user_id": "terms", "product_id": "monthly", "store": "rc_billing", "is_sandbox": true, "language": "en-GB"}"#),
                ("refunded", #"{"app_user_id": "terms", "product_id": "lifetime", "is_sandbox": true}"#),
            ] {
                ids[name] = try await server.grant(app, body).string("purchase.id")
            }
            let granted = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/customers/terms/grants", key: app.secret, json: #"{"entitlement_id": "pro", "duration": "weekly"}"#)
            ids["grant"] = try granted.string("id")
            let withdrawn = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/customers/terms/grants", key: app.secret, json: #"{"entitlement_id": "pro", "duration": "monthly"}"#)
            ids["revoked"] = try withdrawn.string("id")
            let revoke = try await server.send(.post, "/admin/v1/apps/\(app.id)/grants/\(ids["revoked"] ?? "")/revoke", key: app.secret)
            #expect(revoke.status == 200, "\(revoke.body)")
            let refund = try await server.send(.post, "/admin/v1/apps/\(app.id)/purchases/\(ids["refunded"] ?? "")/refund", key: app.secret)
            #expect(refund.status == 200, "\(refund.body)")

            let page = try await Self.get(server, try await Self.customerPath(server, appID: app.id, query: "terms", cookie: owner), cookie: owner)
            func hint(_ name: String) throws -> String {
                let article = try #require(
                    page.body.firstMatch(of: try Regex(#"id="purchase-\#(ids[name] ?? "none")"[\s\S]*?<p class="hint">([^<]*)</p>"#)))
                return String(try #require(article.output[1].substring))
            }
            func pill(_ name: String) throws -> String {
                let article = try #require(
                    page.body.firstMatch(of: try Regex(#"id="purchase-\#(ids[name] ?? "none")"[\s\S]*?<span class="pill pill--([a-z ]+)">"#)))
                return String(try #require(article.output[1].substring))
            }
            let hints = try ["elsewhere", "here", "refunded", "grant", "revoked"].map(hint)
            #expect(hints[0].hasSuffix(" · renews or expires 2026-07-01 00:00:00 UTC where it was paid"), "\(hints[0])")
            #expect(hints[1].hasSuffix(" · renews 2026-07-01 00:00:00 UTC"), "\(hints[1])")
            #expect(hints[2].hasSuffix(" · refunded 2026-06-01 00:00:00 UTC"), "\(hints[2])")
            #expect(hints[3].hasSuffix(" · ends 2026-06-08 00:00:00 UTC, won’t renew"), "\(hints[3])")
            #expect(hints[4].hasSuffix(" · revoked 2026-06-01 00:00:00 UTC"), "\(hints[4])")
            #expect(try ["grant", "revoked", "refunded"].map(pill) == ["active", "revoked", "refunded"])
            // The language a purchase's e-mails speak, for support asked why a receipt came in Chinese; none when English.
            let elsewhere = try #require(page.body.firstMatch(of: try Regex(#"id="purchase-\#(ids["elsewhere"] ?? "")"[\s\S]*?</article>"#)))
            #expect(String(elsewhere.output[0].substring ?? "").contains("<dt>E-mails in</dt><dd>Chinese, Traditional</dd>"))
            #expect(page.body.components(separatedBy: "<dt>E-mails in</dt>").count == 2, "only the one whose language is not English")
            // Its revocation is the grant's cancellation: no second "cancelled" line beside its term.
            let revokedArticle = try #require(page.body.firstMatch(of: try Regex(#"id="purchase-\#(ids["revoked"] ?? "")"[\s\S]*?</article>"#)))
            #expect(!String(revokedArticle.output[0].substring ?? "").contains("cancelled"))
            #expect(page.body.contains("Revoked pro entitlement") && !page.body.contains("Renewal of pro entitlement"), "the history")
            // A grant is headed by the entitlement it gives, not by its reserved product ID.
            #expect(page.body.contains("<h3>pro entitlement <span class=\"pill pill--revoked\">") && !page.body.contains("<h3>rc_promo_"))
        }
    }

    @Test(arguments: TestDatabases.available)
    func theLandingListsRecentCustomersAndFiltersThem(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createAppWithCatalog()
            let owner = try await ConsoleTests.signedInOwner(server)
            let empty = try await Self.get(server, "/console/apps/\(app.id)", cookie: owner)
            #expect(empty.status == 200 && empty.body.contains("No customers yet.") && empty.body.contains("open Products"))
            _ = try await server.grant(app, #"{"app_user_id": "old-buyer", "product_id": "lifetime", "email": "old@example.com"}"#)
            clock.advance(by: 60)
            let refunded = try await server.grant(
                app, #"{"app_user_id": "refunded-one", "product_id": "monthly", "store": "rc_billing", "is_sandbox": true}"#)
            let refundedID = try #require(try refunded.string("purchase.id"))
            clock.advance(by: 60)
            _ = try await server.grant(app, #"{"app_user_id": "new-buyer", "product_id": "monthly", "email": "new@example.com"}"#)
            let csrf = try ConsoleOperationsTests.csrf(empty)
            let refund = try await ConsoleTests.post(
                server, "/console/apps/\(app.id)/purchases/\(refundedID)/refund", ["csrf": csrf, "confirm": "yes"], cookie: owner)
            #expect(refund.status == 303)

            let all = try await Self.get(server, "/console/apps/\(app.id)", cookie: owner)
            let order = ["new@example.com", "refunded-one", "old@example.com"].compactMap { all.body.range(of: $0)?.lowerBound }
            #expect(order.count == 3 && order == order.sorted(), "newest activity first")
            let onlyRefunded = try await Self.get(server, "/console/apps/\(app.id)?status=refunded", cookie: owner)
            #expect(onlyRefunded.body.contains("refunded-one") && !onlyRefunded.body.contains("new@example.com"))
            let active = try await Self.get(server, "/console/apps/\(app.id)?status=active&env=production", cookie: owner)
            #expect(active.body.contains("new@example.com") && active.body.contains("old@example.com") && !active.body.contains("refunded-one"))
            let sandbox = try await Self.get(server, "/console/apps/\(app.id)?env=sandbox", cookie: owner)
            #expect(sandbox.body.contains("refunded-one") && !sandbox.body.contains("old@example.com"))
            let trial = try await Self.get(server, "/console/apps/\(app.id)?status=trial", cookie: owner)
            #expect(trial.body.contains("No customer matches these filters."))
            // Who a win-back is for: subscriptions set to end with their period, listed under "Won't renew".
            clock.advance(by: 60)
            let leaving = try await server.grant(app, #"{"app_user_id": "leaving-one", "product_id": "monthly", "is_sandbox": true}"#)
            let cancel = "/admin/v1/apps/\(app.id)/purchases/\(try #require(try leaving.string("purchase.id")))/cancel"
            #expect(try await server.send(.post, cancel, key: app.secret, json: #"{"feedback": "too_expensive"}"#).status == 200)
            let wontRenew = try await Self.get(server, "/console/apps/\(app.id)?status=wont_renew", cookie: owner)
            #expect(wontRenew.body.contains("leaving-one") && !wontRenew.body.contains("new@example.com") && !wontRenew.body.contains("refunded-one"))
            #expect(wontRenew.body.contains("won’t renew") && wontRenew.body.contains(">Won’t renew</a>"))

            // The same list through the admin API: without q, by status and environment.
            let path = "/admin/v1/apps/\(app.id)/customers"
            func listed(_ query: String) async throws -> [String] {
                let reply = try await server.send(.get, path + query, key: app.secret)
                #expect(reply.status == 200, "\(reply.body)")
                return (try reply.object()["customers"] as? [[String: Any]] ?? []).compactMap { $0["original_app_user_id"] as? String }
            }
            #expect(try await listed("?status=wont_renew") == ["leaving-one"])
            #expect(try await listed("?status=refunded&environment=sandbox") == ["refunded-one"])
            #expect(try await listed("?status=active&environment=production") == ["new-buyer", "old-buyer"])
            // Each with the address of their latest purchase that has one, who a win-back e-mail goes to.
            let emails = try await server.send(.get, path + "?status=all", key: app.secret).object()["customers"] as? [[String: Any]] ?? []
            #expect(emails.map { $0["email"] as? String ?? "-" } == ["-", "new@example.com", "-", "old@example.com"])
            #expect(try await listed("") == ["leaving-one", "new-buyer", "refunded-one", "old-buyer"])
            #expect(try await server.send(.get, path + "?q=new-buyer&status=active", key: app.secret).status == 400)
            #expect(try await server.send(.get, path + "?status=gone", key: app.secret).status == 400)
            #expect(try await server.send(.get, path + "?before=garbage", key: app.secret).status == 400)
            #expect(try await server.send(.get, path + "?page=2", key: app.secret).status == 400)
            #expect(try await server.send(.get, "/admin/v1/apps/app_nope/customers?status=all", key: server.adminKey).status == 404)
            #expect(try await Self.get(server, "/console/apps/\(app.id)?status=nope", cookie: owner).status == 400)
            #expect(try await Self.get(server, "/console/apps/\(app.id)?before=garbage", cookie: owner).status == 400)
        }
    }

    /// The admin API's list pages 25 at a time, newest activity first: `next` leads on, and is absent on the last page.
    @Test(arguments: TestDatabases.available)
    func theAdminAPIListPagesWithNext(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createAppWithCatalog()
            for index in 0..<27 {
                _ = try await server.grant(app, #"{"app_user_id": "user-\#(index)", "product_id": "lifetime"}"#)
                clock.advance(by: 60)
            }
            let path = "/admin/v1/apps/\(app.id)/customers?status=active"
            let first = try await server.send(.get, path, key: app.secret).object()
            let firstIDs = (first["customers"] as? [[String: Any]] ?? []).compactMap { $0["original_app_user_id"] as? String }
            #expect(firstIDs == (2..<27).reversed().map { "user-\($0)" } && first["more"] as? Bool == true)
            let next = try #require(first["next"] as? String)
            let second = try await server.send(.get, path + "&before=" + next, key: app.secret).object()
            let secondIDs = (second["customers"] as? [[String: Any]] ?? []).compactMap { $0["original_app_user_id"] as? String }
            #expect(secondIDs == ["user-1", "user-0"] && second["more"] as? Bool == false && second["next"] == nil)
        }
    }

    @Test(arguments: TestDatabases.available)
    func aCustomerWithThirtyPurchasesShowsFiveOpenAndAPagedHistoryNewestFirst(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await ConsoleTests.owner(server)
            for index in 0..<30 {
                _ = try await server.grant(
                    app, #"{"app_user_id": "whale", "product_id": "lifetime", "email": "whale@example.com", "store_transaction_id": "t\#(index)"}"#)
                clock.advance(by: 60)
            }
            let owner = "redeem_console=\(try await ConsoleTests.signIn(server))"
            let path = try await Self.customerPath(server, appID: app.id, query: "whale", cookie: owner)
            let page = try await Self.get(server, path, cookie: owner)
            #expect(page.status == 200)
            #expect(page.body.contains(#"<h1 class="wrap">whale@example.com</h1>"#))
            #expect(page.body.components(separatedBy: #"<article class="purchase""#).count - 1 == 30, "every purchase stays reachable")
            #expect(page.body.contains("25 older purchases"))
            let feed = try #require(page.body.firstMatch(of: /<ol class="feed"[^>]*>(.*?)<\/ol>/.dotMatchesNewlines())?.1)
            let times = feed.matches(of: /<time>([^<]+)<\/time>/).map { String($0.1) }
            #expect(times.count == CustomerFeed.pageSize)
            #expect(times == times.sorted(by: >), "newest first")
            let older = String(try #require(page.body.firstMatch(of: /href="([^"]+\?before=[^"]+)"/)?.1)).replacingOccurrences(of: "&amp;", with: "&")
            let next = try await Self.get(server, older, cookie: owner)
            let nextFeed = try #require(next.body.firstMatch(of: /<ol class="feed"[^>]*>(.*?)<\/ol>/.dotMatchesNewlines())?.1)
            let nextTimes = nextFeed.matches(of: /<time>([^<]+)<\/time>/).map { String($0.1) }
            #expect(!nextTimes.isEmpty && (nextTimes.first ?? "") <= (times.last ?? ""))
        }
    }

    @Test(arguments: TestDatabases.available)
    func onlyOwnersExportAndEraseAndSupportSeesMaskedAddresses(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await ConsoleTests.owner(server)
            _ = try await ConsoleTests.owner(server, email: "help@example.com", role: .support)
            let bought = try await server.grant(
                app,
                #"{"app_user_id": "gdpr-user", "product_id": "monthly", "email": "Private.Person@Example.com", "store": "rc_billing", "is_sandbox": true}"#
            )
            let purchaseID = try #require(try bought.string("purchase.id"))
            let support = "redeem_console=\(try await ConsoleTests.signIn(server, email: "help@example.com"))"
            let owner = "redeem_console=\(try await ConsoleTests.signIn(server))"
            let path = try await Self.customerPath(server, appID: app.id, query: "gdpr-user", cookie: owner)

            let supportPage = try await Self.get(server, path, cookie: support)
            #expect(supportPage.status == 200 && supportPage.body.contains("P***@E***.com"))
            #expect(!supportPage.body.lowercased().contains("private.person@example.com"))
            #expect(!supportPage.body.contains("/export") && !supportPage.body.contains("Erase this customer"))
            #expect(try await Self.get(server, path + "/export", cookie: support).status == 403)
            let supportCSRF = try ConsoleOperationsTests.csrf(supportPage)
            let refusedErase = try await ConsoleTests.post(
                server, path + "/erase", ["csrf": supportCSRF, "confirm_id": "gdpr-user"], cookie: support)
            #expect(refusedErase.status == 403)

            // The owner's export: a JSON download with the purchases, no token or hash, audited without an address.
            let export = try await Self.get(server, path + "/export", cookie: owner)
            #expect(export.status == 200 && export.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(export.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"customer-cus_") == true)
            let json = try export.object()
            let purchases = try #require(json["purchases"] as? [[String: Any]])
            #expect(purchases.map { $0["id"] as? String } == [purchaseID] && purchases.first?["email"] as? String == "Private.Person@Example.com")
            #expect((json["redemption_links"] as? [[String: Any]])?.isEmpty == false)
            #expect((json["emails"] as? [Any]) != nil && (json["webhook_events"] as? [Any]) != nil && (json["audit_entries"] as? [Any]) != nil)
            #expect(!export.body.contains("token_hash") && !export.body.contains("/r/"))
            let customerID = String(path.split(separator: "/").last ?? "")
            var audit = try await server.deps.store.auditLog(appID: app.id, limit: 20)
            let exported = try #require(audit.first { $0.action == "customer.export" })
            #expect(exported.objectID == customerID && exported.actor == "operator:owner@example.com" && exported.detail == nil)

            // Erasing needs the app user ID typed again and the form token.
            let page = try await Self.get(server, path, cookie: owner)
            let csrf = try ConsoleOperationsTests.csrf(page)
            let noToken = try await ConsoleTests.post(server, path + "/erase", ["confirm_id": "gdpr-user"], cookie: owner)
            #expect(noToken.status == 403)
            let mistyped = try await ConsoleTests.post(server, path + "/erase", ["csrf": csrf, "confirm_id": "gdpr-usr"], cookie: owner)
            #expect(mistyped.status == 422 && mistyped.body.contains("That is not the app user ID of this customer"))
            #expect(mistyped.body.contains(#"value="gdpr-usr""#))
            let blank = try await ConsoleTests.post(server, path + "/erase", ["csrf": csrf], cookie: owner)
            #expect(blank.status == 422 && blank.body.contains("Type the app user ID of this customer"))
            #expect(try await server.deps.store.customer(appID: app.id, id: customerID).originalAppUserID == "gdpr-user")

            let erased = try await ConsoleTests.post(server, path + "/erase", ["csrf": csrf, "confirm_id": "gdpr-user"], cookie: owner)
            #expect(erased.status == 303 && erased.headers[.location] == "/console/apps/\(app.id)?notice=erased")
            #expect(try await Self.get(server, path, cookie: owner).status == 404)
            audit = try await server.deps.store.auditLog(appID: app.id, limit: 20)
            let entry = try #require(audit.first { $0.action == "customer.erase" })
            #expect(entry.actor == "operator:owner@example.com" && entry.objectID == customerID && entry.detail == nil)
            let texts = try await RevenueCatRESTTests.everyText(server)
            #expect(!texts.contains { $0.contains("private.person@example.com") || $0.contains("gdpr-user") })
            let landing = try await Self.get(server, "/console/apps/\(app.id)?notice=erased", cookie: owner)
            #expect(landing.body.contains("The customer is erased"))
        }
    }
}
