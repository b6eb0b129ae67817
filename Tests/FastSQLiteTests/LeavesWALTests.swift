import Foundation
import SQLKernel
import Testing

@testable import FastSQLite

/// `leavesWAL` (the CLI's `codes generate`): commits sync the WAL, closing leaves it for the next opener, who sees every
/// commit; without it, closing checkpoints and removes the WAL.
@Suite("FastSQLiteBackend leavesWAL", .timeLimit(.minutes(5)))
struct LeavesWALTests {
    @available(macOS 15.0, iOS 18.0, *)
    static func writeRows(_ path: String, leavesWAL: Bool) async throws -> Int64? {
        let db = try await FastSQLiteBackend.open(path: path, readerCount: 1, leavesWAL: leavesWAL)
        let synchronous = try await db.transaction { connection in
            try await connection.query("CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY, v TEXT)")
            for i in 0..<5000 {
                try await connection.query("INSERT INTO t VALUES (\(UUID().uuidString), \(String(repeating: "x", count: 100 + i % 7)))")
            }
            return try await connection.first("PRAGMA synchronous")?.int("synchronous")
        }
        await db.close()
        return synchronous
    }

    static func walSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func closingLeavesTheSyncedWALForTheNextOpener() async throws {
        try await FastSQLiteTests.withDatabase { path in
            let synchronous = try await Self.writeRows(path, leavesWAL: true)
            #expect(synchronous == 2)  // FULL
            #expect(Self.walSize(path) > 500_000)
            // A second process's worth: it finds every row, and its own close (a server's) checkpoints them in.
            let db = try await FastSQLiteBackend.open(path: path, readerCount: 1)
            #expect(try await db.read { try await $0.first("SELECT COUNT(*) AS n FROM t")?.int("n") } == 5000)
            await db.close()
            #expect(Self.walSize(path) == 0)
        }
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func withoutItClosingCheckpoints() async throws {
        try await FastSQLiteTests.withDatabase { path in
            let synchronous = try await Self.writeRows(path, leavesWAL: false)
            #expect(synchronous == 1)  // NORMAL
            #expect(Self.walSize(path) == 0)
        }
    }
}
