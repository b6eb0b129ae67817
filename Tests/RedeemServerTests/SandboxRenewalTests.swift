import Foundation
import Logging
import RedeemCore
import RedeemServer
import RedeemTestSupport
import Testing

@Suite struct SandboxRenewalTests {
    @Test(arguments: TestDatabases.available)
    func sandboxSubscriptionsRenewOnTheAcceleratedClockThenExpire(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await CheckoutTests.shop(server)
            // Record events without sending them: an endpoint nobody listens on.
            #expect(
                try await server.send(.post, "/admin/v1/apps/\(app.id)/webhooks", key: app.secret, json: #"{"url": "http://127.0.0.1:9/x"}"#).status
                    == 201)
            let page = try await server.send(.get, "/sandbox/p/\(app.id)/monthly/zoe", key: nil)
            _ = try await server.send(
                .post, "/sandbox/p/\(app.id)/monthly/zoe", key: nil,
                json: "email=z%40example.com&checkout_id=\(try CheckoutTests.checkoutID(page))", headers: CheckoutTests.form)
            let worker = SandboxRenewalWorker(store: server.deps.store, clock: clock, logger: Logger(label: "test"))
            #expect(await worker.renewDue() == 0)  // not due yet
            for renewal in 1...6 {
                clock.advance(by: 301)
                #expect(await worker.renewDue() == 1)
                let purchase = try #require(try await server.deps.store.purchases(appID: app.id, email: "z@example.com").first)
                #expect(purchase.expiresDate == TestServer.start.addingTimeInterval(Double(renewal + 1) * 300))
            }
            clock.advance(by: 301)
            #expect(await worker.renewDue() == 1)  // the seventh lapse is final
            clock.advance(by: 3600)
            #expect(await worker.renewDue() == 0)
            let types = try await server.deps.store.webhookDeliveries(appID: app.id).map(\.eventType)
            #expect(types.filter { $0 == "RENEWAL" }.count == 6)
            #expect(types.filter { $0 == "EXPIRATION" }.count == 1)
            #expect(types.filter { $0 == "INITIAL_PURCHASE" }.count == 1)
            let info = try await server.send(.get, "/v1/subscribers/zoe", key: app.publicSandbox).object()
            #expect(
                info.value(at: "subscriber.subscriptions.monthly.expires_date") as? String
                    == ISODate.format(TestServer.start.addingTimeInterval(7 * 300)))
        }
    }
}
