import Foundation
import Logging
import PostgresEngine
import RedeemStore
import RedeemTestSupport
import Synchronization
import Testing

/// A backend's first calls wait until its pool runs: PostgresNIO logs a warning for a connection leased before, which
/// every `redeem` command on PostgreSQL printed at start.
@Suite(.enabled(if: TestDatabases.postgresConfigured, "needs REDEEM_TEST_POSTGRES_URL"))
struct PostgresRunGateTests {
    /// Whether a call beats the runner is a race, so the test opens twenty backends and calls each at once.
    @Test func callsMadeAtOnceAfterOpeningLeaseNothingBeforeThePoolRuns() async throws {
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
