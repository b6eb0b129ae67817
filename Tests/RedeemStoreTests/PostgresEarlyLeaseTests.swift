import Foundation
import Logging
import RedeemStore
import RedeemTestSupport
import Synchronization
import Testing

@testable import PostgresEngine

/// PostgresNIO warns about a connection leased before its client runs, which every `redeem` command on PostgreSQL
/// printed at start although the lease waits for the pool like any other: the backend's logger drops that one warning.
@Suite struct PostgresEarlyLeaseTests {
    /// Calls made right after opening a backend race its runner; twenty backends called at once, and no such warning.
    @Test(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL"))
    func callsMadeAtOnceAfterOpeningLogNoEarlyLeaseWarning() async throws {
        let base = try #require(TestDatabases.postgresURL)
        let logs = RecordedLogs()
        for _ in 0..<20 {
            let backend = try PostgresBackend(
                url: URL(string: base)!, connectionWait: TestDatabases.connectionWait, logger: Logger(label: "test") { _ in logs })
            _ = try await backend.read { try await $0.query("SELECT 1 AS one") }
            try await withThrowingTaskGroup { group in
                for _ in 0..<4 {
                    group.addTask { _ = try await backend.transaction { try await $0.query("SELECT 1 AS one") } }
                }
                try await group.waitForAll()
            }
            await backend.close()
        }
        #expect(logs.messages.filter { $0.contains("run()") } == [])
    }

    /// Only that warning: the same words at another level, and every other warning, still reach the logger.
    @Test func theFilterDropsThatWarningAlone() {
        let logs = RecordedLogs()
        let logger = EarlyLeaseFilter.logger(Logger(label: "postgres") { _ in logs })
        #expect(logger.label == "postgres")
        logger.warning("Trying to lease connection from `PostgresClient`, but `PostgresClient.run()` hasn't been called yet.")
        logger.warning("Connection to the server was closed.")
        logger.error("Trying to lease connection from `PostgresClient`, but `PostgresClient.run()` hasn't been called yet.")
        #expect(logs.messages.count == 2 && logs.messages.first == "Connection to the server was closed.", "\(logs.messages)")
    }
}

/// Every message logged at warning or above.
final class RecordedLogs: LogHandler, Sendable {
    private let recorded = Mutex<[String]>([])
    var messages: [String] { recorded.withLock { $0 } }

    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }
    var logLevel: Logger.Level {
        get { .warning }
        set {}
    }
    subscript(metadataKey _: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    func log(event: LogEvent) {
        recorded.withLock { $0.append("\(event.message)") }
    }
}
