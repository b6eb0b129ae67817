import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import SQLKernel
import Synchronization

/// `LISTEN` on a connection of its own, outside the pool (a transaction pooler cannot carry a session's `LISTEN`, so
/// its URL may differ from the pool's). Every `pingInterval` it notifies itself on the same channel: PostgreSQL delivers
/// notifications in commit order, so when its own comes back, everything committed before it was sent has been
/// reported (`caughtUp`).
final class PostgresListener: SQLNotificationSource {
    private let address: PostgresAddress
    private let logger: Logger
    let pingInterval: Duration

    init(url: URL, pingInterval: Duration = .milliseconds(25), logger: Logger) throws {
        address = try PostgresAddress(url)
        self.pingInterval = pingInterval
        self.logger = logger
    }

    /// A connection on a channel opened here, so that `BackendKeySniffer` reads the session's key before PostgresNIO does.
    private func connect(id: Int) async throws -> (PostgresConnection, BackendKeySniffer) {
        let sniffer = BackendKeySniffer()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(sniffer) }
            }
            .connect(host: address.host, port: address.port).get()
        var configuration = PostgresConnection.Configuration(
            establishedChannel: channel, username: address.username, password: address.password, database: address.database)
        // Named, so operators (and tests counting the pool's connections) can tell it from the pool's in pg_stat_activity.
        configuration.options.additionalStartupParameters = [("application_name", "redeem listener")]
        do {
            return (try await PostgresConnection.connect(on: channel.eventLoop, configuration: configuration, id: id, logger: logger), sniffer)
        } catch {
            try? await channel.close()
            throw error
        }
    }

    func listen(channel: String, sink: @escaping @Sendable (SQLNotificationEvent) -> Void) async {
        var backoff = Duration.milliseconds(100)
        var id = 0
        while !Task.isCancelled {
            id += 1
            do {
                let (connection, sniffer) = try await connect(id: id)
                let connected = Atomic(false)
                do {
                    try await untilClosed(connection) {
                        try await self.session(
                            on: connection, key: sniffer.processID, channel: channel, sink: sink,
                            connected: { connected.store(true, ordering: .relaxed) })
                    }
                } catch {
                    if connected.load(ordering: .relaxed) { backoff = .milliseconds(100) }
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch is PoolerInTheWay {
                sink(.lost)
                // Not a failure that goes away: stay on the tag read until the process restarts with another URL.
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                return
            } catch {
                sink(.lost)
                if Task.isCancelled { return }
                logger.notice("PostgreSQL listener lost; Customer Info reads the tag until it is back", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(2))
            }
        }
    }

    private struct PoolerInTheWay: Error {}
    private struct ConnectionClosed: Error {}

    /// Runs `body` until it ends or `connection` closes, whichever comes first; cancelled, it closes the connection.
    /// PostgresNIO 1.33 never answers a query sent just as the server closes the connection (see `PostgresCallWatch`):
    /// a ping caught so held the session, and with it shutdown, forever after a PostgreSQL restart. Such stuck work is
    /// abandoned, not awaited.
    private func untilClosed(_ connection: PostgresConnection, _ body: @escaping @Sendable () async throws -> Void) async throws {
        let work = Task { try await body() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let pending = Mutex<CheckedContinuation<Void, any Error>?>(continuation)
                let finish = { @Sendable (result: Result<Void, any Error>) in pending.withLock { $0.take()?.resume(with: result) } }
                connection.closeFuture.whenComplete { _ in finish(.failure(ConnectionClosed())) }
                Task { finish(await work.result) }
            }
        } onCancel: {
            work.cancel()
            connection.close().whenComplete { _ in }
        }
    }

    private func session(
        on connection: PostgresConnection, key: Int32?, channel: String, sink: @escaping @Sendable (SQLNotificationEvent) -> Void,
        connected: @Sendable () -> Void
    ) async throws {
        // Through a pooler, LISTEN would hear some other client's session, or nothing. PostgreSQL's session key names the
        // backend that serves the session; a pooler's names none (see `BackendKeySniffer`), whatever port it answers on.
        let rows = try await connection.query("SELECT pg_backend_pid()::int8 AS pid", logger: logger)
        var backend: Int64?
        for try await row in rows { backend = try row.decode(Int64?.self) }
        guard let backend, let key, backend == Int64(key) else {
            logger.warning(
                "the database listen URL does not reach PostgreSQL directly: the session's key names process \(key.map(String.init) ?? "none"), its backend is \(backend.map(String.init) ?? "unknown") (a pooler is in between). Customer Info reads its tag on every request; set --database-listen-url to a direct connection"
            )
            throw PoolerInTheWay()
        }
        // The pings carry no data: their commits need not wait for the disk.
        try await connection.query("SET synchronous_commit = off", logger: logger)
        connected()
        let me = UInt64.random(in: 1...UInt64.max)
        let pings = PingLog()
        try await connection.listen(on: channel) { notifications in
            sink(.listening)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await notification in notifications {
                        guard let n = Self.ping(notification.payload, from: me) else {
                            if !notification.payload.hasPrefix("ping ") { sink(.payload(notification.payload)) }
                            continue
                        }
                        if let sent = pings.returned(n) { sink(.caughtUp(sentAt: sent)) }
                    }
                    throw CancellationError()
                }
                group.addTask {
                    var n: UInt64 = 0
                    while true {
                        n += 1
                        let number = n
                        pings.sent(number)
                        try await connection.query("SELECT pg_notify(\(channel), \("ping \(me) \(number)"))", logger: self.logger)
                        try await Task.sleep(for: self.pingInterval)
                    }
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }

    /// When each ping still on its way was sent.
    final class PingLog: Sendable {
        private let sentAt = Mutex([UInt64: ContinuousClock.Instant]())

        func sent(_ n: UInt64) { sentAt.withLock { $0[n] = .now } }

        /// When ping `n` was sent; it and every earlier one are forgotten.
        func returned(_ n: UInt64) -> ContinuousClock.Instant? {
            sentAt.withLock { sentAt in
                defer { sentAt = sentAt.filter { $0.key > n } }
                return sentAt[n]
            }
        }
    }

    /// The number of one of this listener's pings, or nil for anything else (other instances ping on the channel too).
    static func ping(_ payload: String, from me: UInt64) -> UInt64? {
        let parts = payload.split(separator: " ")
        guard parts.count == 3, parts[0] == "ping", UInt64(parts[1]) == me else { return nil }
        return UInt64(parts[2])
    }
}
