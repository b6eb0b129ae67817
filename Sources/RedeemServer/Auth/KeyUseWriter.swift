import Foundation
import Logging
import ServiceLifecycle

/// Writes when keys were last used, once a minute and at shutdown, from what `KeyCache` gathered.
public struct KeyUseWriter: Service {
    let cache: KeyCache
    let logger: Logger
    let interval: Duration

    public init(cache: KeyCache, logger: Logger, interval: Duration = .seconds(60)) {
        self.cache = cache
        self.logger = logger
        self.interval = interval
    }

    public func run() async throws {
        let loop = QueueWorkerLoop(interval: interval)
        await loop.run { [self] in await flush() }
        await flush()  // After shutdown began: the last minute's uses (the store closes after this service).
    }

    /// Writes the uses gathered so far; on failure they wait for the next pass.
    public func flush() async {
        do {
            try await cache.writeUses()
        } catch {
            logger.warning("could not record key uses", metadata: ["error": "\(error)"])
        }
    }
}
