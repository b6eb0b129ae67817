import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import RedeemCore
import RedeemStore
import RedeemWebhooks
import ServiceLifecycle

/// Delivers queued server notifications at least once: signed, retried with backoff on non-2xx answers and
/// timeouts, every attempt logged. Deliveries are leased, so instances never send one at the same time; the
/// event ID in the body is stable, so receivers can drop repeats.
///
/// Up to `concurrency` attempts run at once, at most `perEndpoint` of them to one endpoint (across instances), each
/// bounded by a 2 s connect timeout and the policy's total timeout: a dead or slow endpoint holds its own slots only.
/// Every claimed delivery starts at once, so it ends within its lease (the total timeout and 30 s more).
public final class WebhookDeliveryWorker: Service, Sendable {
    let store: any WebhookQueueStore
    let clock: any RedeemClock
    let logger: Logger
    let policy: WebhookRetryPolicy
    let pollInterval: Duration
    let concurrency: Int
    let perEndpoint: Int
    let client: HTTPClient
    private let loop: QueueWorkerLoop

    public init(
        store: any WebhookQueueStore, clock: any RedeemClock, logger: Logger, policy: WebhookRetryPolicy = .default,
        pollInterval: Duration = .seconds(1), concurrency: Int = 32, perEndpoint: Int = 4
    ) {
        self.store = store
        self.clock = clock
        self.logger = logger
        self.policy = policy
        self.pollInterval = pollInterval
        self.concurrency = concurrency
        self.perEndpoint = perEndpoint
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: .seconds(2), read: .seconds(Int64(policy.timeout)))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = perEndpoint
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.loop = QueueWorkerLoop(interval: pollInterval)
    }

    /// Never blocks (a blocking shutdown on an event-loop thread would trap); a second shutdown only reports an error, ignored.
    deinit { client.shutdown { _ in } }

    public func wake() { loop.wakeup.yield() }

    /// Delivers until graceful shutdown, then closes the HTTP client's connections.
    public func run() async throws {
        await loop.run { [self] in await self.drain() }
        try? await client.shutdown().get()
    }

    /// Attempts everything due now, concurrently; returns how many were delivered.
    @discardableResult
    public func drain() async -> Int {
        await ConcurrentDrain.run(limit: concurrency) { free in
            do {
                return try await store.claimDueDeliveries(now: clock.now(), lease: policy.timeout + 30, limit: free, perEndpoint: perEndpoint)
            } catch {
                logger.error("webhook queue unavailable", metadata: ["error": "\(error)"])
                return []
            }
        } work: { [self] delivery, endpoint in
            await deliver(delivery, to: endpoint)
        }
    }

    func deliver(_ delivery: WebhookDelivery, to endpoint: WebhookEndpoint) async -> Bool {
        let started = ContinuousClock.now
        let now = clock.now()
        var request = HTTPClientRequest(url: endpoint.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Redeem-Webhooks/1.0")
        let body = Array(delivery.body.utf8)
        request.headers.add(
            name: WebhookSignature.headerName,
            value: WebhookSignature.header(body: body, secret: endpoint.signingSecret, timestamp: now))
        if let authorization = endpoint.authorization { request.headers.add(name: "Authorization", value: authorization) }
        request.body = .bytes(ByteBuffer(bytes: body))
        var status: Int?
        var failure: String?
        do {
            let response = try await client.execute(request, timeout: .seconds(Int64(policy.timeout)))
            status = Int(response.status.code)
            _ = try? await response.body.collect(upTo: 64 * 1024)
        } catch {
            failure = "\(error)"
        }
        // Shutdown interrupted it: no attempt is spent; the lease keeps the delivery, sent again once it runs out.
        if Task.isCancelled {
            logger.info("webhook attempt interrupted by shutdown", metadata: ["delivery_id": "\(delivery.id)"])
            return false
        }
        let elapsed = ContinuousClock.now - started
        let ok = WebhookRetryPolicy.isSuccess(statusCode: status)
        let attempt = WebhookAttempt(
            attemptedAt: now, statusCode: status, error: failure ?? (ok ? nil : "HTTP \(status ?? 0)"),
            durationMs: elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        )
        let retryAt = ok ? nil : policy.nextAttempt(afterAttempt: delivery.attempts + 1, from: now)
        logger.info(
            "webhook attempt",
            metadata: [
                "delivery_id": "\(delivery.id)", "event_id": "\(delivery.eventID)", "status": "\(status.map(String.init) ?? "none")",
                "delivered": "\(ok)", "retry": "\(retryAt != nil)",
            ])
        try? await store.recordDeliveryAttempt(deliveryID: delivery.id, attempt: attempt, delivered: ok, retryAt: retryAt)
        RedeemMetrics.webhookAttempt(ok ? "delivered" : retryAt == nil ? "failed" : "retry")
        return ok
    }
}
