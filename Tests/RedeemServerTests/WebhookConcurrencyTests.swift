import Foundation
import Logging
import RedeemServer
import RedeemTestSupport
import RedeemWebhooks
import Testing

/// Deliveries run concurrently, bounded per endpoint, and leases keep two workers (two instances) from sending one
/// event twice.
// The time limit is the hang guard for waits that end on an event.
@Suite(.timeLimit(.minutes(5))) struct WebhookConcurrencyTests {
    static func register(_ server: TestServer, _ app: CreatedAppKeys, url: String) async throws {
        let reply = try await server.send(.post, "/admin/v1/apps/\(app.id)/webhooks", key: app.secret, json: #"{"url": "\#(url)"}"#)
        #expect(reply.status == 201, "\(reply.body)")
    }

    static func purchases(_ server: TestServer, _ app: CreatedAppKeys, count: Int, prefix: String) async throws {
        for n in 0..<count {
            let reply = try await server.grant(app, #"{"app_user_id": "\#(prefix)-\#(n)", "product_id": "lifetime"}"#)
            #expect(reply.status == 201)
        }
    }

    /// An endpoint that accepts connections and never answers holds only its own slots: another app's events arrive
    /// while its attempts are still waiting for their timeout.
    @Test(arguments: TestDatabases.available)
    func aHangingEndpointDelaysNoOtherEndpoint(_ backend: TestBackend) async throws {
        let hanging = try LoopbackSocket(listening: true)
        defer { hanging.close() }
        let hangingURL = "http://127.0.0.1:\(hanging.port)/hooks"
        try await WebhookReceiver.with { receiver in
            try await TestServer.with(backend) { server in
                let stuck = try await server.createAppWithCatalog()
                let healthy = try await server.createAppWithCatalog()
                try await Self.register(server, stuck, url: hangingURL)
                try await Self.register(server, healthy, url: receiver.url)
                try await Self.purchases(server, stuck, count: 4, prefix: "stuck")
                try await Self.purchases(server, healthy, count: 5, prefix: "healthy")
                let worker = WebhookDeliveryWorker(
                    store: server.deps.store, clock: server.deps.clock, logger: Logger(label: "test"),
                    policy: WebhookRetryPolicy(timeout: 600), perEndpoint: 2)
                let draining = Task { await worker.drain() }
                // Waits for the event (every healthy event arrived), however long a loaded machine takes; the suite's
                // time limit is the hang guard. The hanging endpoint's attempts (600 s each) are all still open then.
                while try receiver.received().count < 5 { try await Task.sleep(for: .milliseconds(50)) }
                let attemptsSoFar = try await server.deps.store.webhookDeliveries(appID: stuck.id).reduce(0) { $0 + $1.attempts }
                #expect(attemptsSoFar == 0, "the healthy endpoint's events arrived while no attempt to the hanging one had ended")
                // The hanging endpoint goes away: its open attempts fail at once and the drain ends.
                hanging.close()
                #expect(await draining.value == 5)
                // Two at a time to the hanging endpoint: 4 attempts, each failed, none delivered.
                let stuckDeliveries = try await server.deps.store.webhookDeliveries(appID: stuck.id)
                #expect(stuckDeliveries.count == 4)
                #expect(stuckDeliveries.allSatisfy { $0.attempts == 1 && $0.deliveredAt == nil })
            }
        }
    }

    /// Two workers on one database, as two instances: every event is sent exactly once.
    @Test(arguments: TestDatabases.available)
    func twoWorkersSendEachEventOnce(_ backend: TestBackend) async throws {
        try await WebhookReceiver.with { receiver in
            try await TestServer.with(backend) { server in
                let app = try await server.createAppWithCatalog()
                try await Self.register(server, app, url: receiver.url)
                try await Self.purchases(server, app, count: 30, prefix: "buyer")
                let workers = (0..<2).map { _ in
                    WebhookDeliveryWorker(store: server.deps.store, clock: server.deps.clock, logger: Logger(label: "test"), perEndpoint: 8)
                }
                async let first = workers[0].drain()
                async let second = workers[1].drain()
                let delivered = await first + second
                #expect(delivered == 30)
                let ids = try receiver.received().map { try WebhookTests.event($0)["id"] as? String }
                #expect(ids.count == 30)
                #expect(Set(ids).count == 30)
            }
        }
    }
}
