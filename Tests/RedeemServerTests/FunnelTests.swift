import Foundation
import HTTPTypes
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// The overview's funnel after a scripted set of checkouts, purchases, page views, redemptions, a refund and a grant
/// whose numbers the test knows.
@Suite struct FunnelTests {
    @Test(arguments: TestDatabases.available)
    func theFunnelCountsWhatHappened(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await ConsoleTests.owner(server, email: "help@example.com", role: .support)
            // Day 1: two sandbox checkout pages, two purchases: one in USD through the checkout's store, one in EUR recorded
            // through the API (so not a checkout's conversion).
            for _ in 0..<2 { #expect(try await server.send(.get, "/sandbox/p/\(app.id)/lifetime", key: nil).status == 200) }
            let usd = try await server.grant(
                app, #"{"app_user_id": "f1", "product_id": "lifetime", "store": "rc_billing", "price": {"amount": "4.99", "currency": "USD"}}"#)
            let eur = try await server.grant(
                app, #"{"app_user_id": "f2", "product_id": "lifetime", "is_sandbox": true, "price": {"amount": "9.99", "currency": "EUR"}}"#)
            // 40 minutes later: the first link's page is opened and the link redeemed; the EUR purchase is refunded.
            clock.advance(by: 40 * 60)
            let token = try RedemptionAPITests.token(from: usd)
            #expect(try await server.send(.get, "/r/\(token)", key: nil).status == 200)
            #expect(try await server.send(.get, "/r/\(token)", key: nil).status == 200, "opened twice, counted once")
            #expect(try await RedemptionAPITests.redeem(server, app, user: "phone-f1", token: token).status == 200)
            let eurID = try #require(try eur.string("purchase.id"))
            #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/purchases/\(eurID)/refund", key: app.secret).status == 200)
            // A grant is not a purchase.
            let grant = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/customers/f3/grants", key: app.secret, json: #"{"entitlement_id": "pro", "duration": "monthly"}"#)
            #expect(grant.status == 201)
            // Long after: the EUR purchase's link expired unused.
            clock.advance(by: 3 * 86_400)

            let funnel = try await server.deps.store.funnel(appID: app.id, days: 7, now: clock.now())
            #expect(funnel.days.count == 7)
            #expect(funnel.totals.checkouts == 2)
            #expect(funnel.totals.purchases == 1 && funnel.totals.purchasesElsewhere == 1)
            #expect(funnel.purchasesSentALink == 2)
            #expect(funnel.totals.linksIssued == 2)
            #expect(funnel.totals.linksOpened == 1)
            #expect(funnel.totals.linksRedeemed == 1)
            #expect(funnel.expiredUnused == 1)
            #expect(funnel.medianToRedeem.map { Int($0.rounded()) } == 40 * 60, "\(String(reflecting: funnel.medianToRedeem))")
            #expect(funnel.p90ToRedeem.map { Int($0.rounded()) } == 40 * 60)
            #expect(funnel.revenue == ["USD": 4_990_000])
            let day1 = try #require(funnel.days.first { $0.day == ISODate.parse("2026-06-01T00:00:00Z") })
            #expect(day1.purchases == 1 && day1.purchasesElsewhere == 1 && day1.checkouts == 2, "by day")
            #expect(day1.linksRedeemed == 1, "links count on the day they were issued")
            #expect(funnel.steps.map(\.count) == [2, 1, 2, 2, 1, 1])
            #expect(funnel.steps.map(\.rate) == [nil, 0.5, 1.0, nil, 0.5, 0.5])

            let cookie = "redeem_console=\(try await ConsoleTests.signIn(server, email: "help@example.com"))"
            let page = try await server.send(.get, "/console/apps/\(app.id)/overview?days=7", key: nil, headers: [.cookie: cookie])
            #expect(page.status == 200)
            #expect(page.body.contains(#"<td data-step="Links redeemed">1</td>"#))
            #expect(page.body.contains(#"<td data-step="Purchases through checkout">1</td><td>50% of checkouts started</td>"#))
            #expect(page.body.contains(#"<strong id="elsewhere">1</strong>"#))
            #expect(page.body.contains(#"<dd id="median">40 min</dd>"#))
            #expect(page.body.contains("4.99 USD") || page.body.contains("$4.99"), "revenue in words")
            // Each step's bar is drawn to scale against the widest step (2), beside its name and count in HTML.
            let bars = page.body.matches(of: /<rect width="([\d.]+)" height="16" fill="#5b5bd6"\/>/).map { String($0.1) }
            #expect(bars == ["100.0", "50.0", "100.0", "100.0", "50.0", "50.0"])
            #expect(page.body.contains(#"<span class="funnel__name">Links redeemed</span>"#))
            #expect(page.body.contains(#"<span class="funnel__count">1 (50%)</span>"#))
            // The per-day chart names the window's first and last days, seven days in all, and its tallest column.
            let axis = try #require(page.body.firstMatch(of: /id="day-axis"><span>([0-9-]{10})<\/span><span>([0-9-]{10})<\/span>/))
            let first = try #require(ISODate.parse("\(axis.1)T00:00:00Z"))
            #expect(try #require(ISODate.parse("\(axis.2)T00:00:00Z")).timeIntervalSince(first) == 6 * 86_400)
            #expect(page.body.contains("the tallest column is 2."))
            #expect(try await server.send(.get, "/console/apps/\(app.id)/overview?days=12", key: nil, headers: [.cookie: cookie]).status == 400)
        }
    }
}
