import Foundation

@testable import RedeemKit

/// A transport that records requests and answers from a handler; never touches the network.
final class FakeTransport: HTTPTransport, Sendable {
    typealias Handler = @Sendable (HTTPRequest, Int) async throws -> HTTPResponse

    private let recorded = Locked<[HTTPRequest]>([])
    private let handler: Handler

    init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    /// Answers with `responses` in order; the last one repeats.
    convenience init(_ responses: [HTTPResponse]) {
        self.init { _, index in responses[min(index, responses.count - 1)] }
    }

    convenience init(_ response: HTTPResponse) {
        self.init([response])
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let index = recorded.withLock { requests in
            requests.append(request)
            return requests.count - 1
        }
        return try await handler(request, index)
    }

    var requests: [HTTPRequest] { recorded.withLock { $0 } }
    var count: Int { recorded.withLock { $0.count } }

    /// JSON bodies of the recorded requests.
    var bodies: [[String: String]] {
        requests.compactMap { request in
            request.body.flatMap { try? JSONDecoder().decode([String: String].self, from: $0) }
        }
    }
}

struct TransportFailure: Error {}

/// A one-shot signal tests can wait for without sleeping.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

/// Suspends until `gate` opens; throws `CancellationError` promptly if the task is cancelled.
func waitCancellably(for gate: Gate) async throws {
    try await withTaskCancellationHandler {
        await gate.wait()
        try Task.checkCancellation()
    } onCancel: {
        Task { await gate.open() }
    }
}

/// Yields until `condition` holds (bounded), for state that changes on other tasks.
func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
    for _ in 0..<100_000 {
        if await condition() { return true }
        await Task.yield()
    }
    return false
}
