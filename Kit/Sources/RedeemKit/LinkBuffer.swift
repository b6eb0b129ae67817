import Foundation

/// Keeps redemption links that arrive before configuration, then feeds them, and every later
/// link, to one instance through a serial queue, so links are redeemed one at a time in order.
final class LinkBuffer: Sendable {
    typealias ResultHandler = @MainActor @Sendable (WebPurchaseRedemptionResult) -> Void

    struct Link: Sendable {
        let url: URL
        let onResult: ResultHandler?
    }

    private enum State {
        case waiting([Link])
        case attached(Redeem, LinkQueue)
    }

    static let shared = LinkBuffer()

    private let state = Locked(State.waiting([]))

    /// Keeps or enqueues `url` if it is a redemption link; returns whether it was taken.
    func handle(_ url: URL, onResult: ResultHandler?) -> Bool {
        state.withLock { state in
            switch state {
            case .waiting(var links):
                guard RedemptionLinkParser.provisional.parse(url) != nil else { return false }
                links.append(Link(url: url, onResult: onResult))
                state = .waiting(links)
                return true
            case .attached(let redeem, let queue):
                guard redeem.linkParser.parse(url) != nil else { return false }
                queue.enqueue(Link(url: url, onResult: onResult))
                return true
            }
        }
    }

    /// Routes links to `redeem` from now on, starting with the kept ones in arrival order.
    func attach(_ redeem: Redeem) {
        state.withLock { state in
            let queue = LinkQueue(redeem: redeem)
            switch state {
            case .waiting(let links):
                links.forEach(queue.enqueue)
            case .attached(_, let previous):
                previous.finish()
            }
            state = .attached(redeem, queue)
        }
    }

    /// Links kept while waiting for configuration.
    var pendingCount: Int {
        state.withLock { state in
            if case .waiting(let links) = state { return links.count }
            return 0
        }
    }
}

/// Redeems links one after another on one instance.
final class LinkQueue: Sendable {
    private let continuation: AsyncStream<LinkBuffer.Link>.Continuation

    init(redeem: Redeem) {
        let (stream, continuation) = AsyncStream.makeStream(of: LinkBuffer.Link.self)
        self.continuation = continuation
        Task {
            for await link in stream {
                // Re-check with the instance's rules: links kept before configuration were only provisional.
                guard let redemption = redeem.webPurchaseRedemption(from: link.url) else { continue }
                let result = await redeem.redeemWebPurchase(redemption)
                if let onResult = link.onResult {
                    await onResult(result)
                }
            }
        }
    }

    func enqueue(_ link: LinkBuffer.Link) {
        continuation.yield(link)
    }

    /// Stops taking links; those already queued are still redeemed.
    func finish() {
        continuation.finish()
    }
}
