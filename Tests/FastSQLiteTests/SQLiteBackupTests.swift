import Foundation
import SQLKernel
import Testing

@testable import FastSQLite

@Suite("SQLiteBackup")
struct SQLiteBackupTests {
    /// A copy taken while a writer is in the middle of a transaction is one snapshot: 100 pairs committed before it are
    /// all there, and the pair half-written when the copy ran is not (a torn copy would hold an odd count).
    @available(macOS 15.0, iOS 18.0, *)
    @Test func copiesALiveDatabaseAsOneSnapshot() async throws {
        try await FastSQLiteTests.withBackend(groupCommit: true) { db in
            try await db.transaction { try await $0.query("CREATE TABLE pairs (n INTEGER)") }
            let path = db.path
            let (halfWritten, wroteHalf) = AsyncStream<Void>.makeStream()
            let (copyDone, finishedCopy) = AsyncStream<Void>.makeStream()
            let writer = Task {
                for n in 0..<100 {
                    try await db.transaction { c in
                        try await c.query("INSERT INTO pairs VALUES (\(n))")
                        try await c.query("INSERT INTO pairs VALUES (\(n))")
                    }
                }
                try await db.transaction { c in
                    try await c.query("INSERT INTO pairs VALUES (100)")
                    wroteHalf.yield()
                    for await _ in copyDone { break }  // the copy runs while this transaction is open
                    try await c.query("INSERT INTO pairs VALUES (100)")
                }
            }
            for await _ in halfWritten { break }
            let copy = path + ".copy"
            try SQLiteBackup.copy(from: path, to: copy)
            finishedCopy.yield()
            try await writer.value
            #expect(try SQLiteBackup.integrityProblem(path: copy) == nil)
            #expect(try SQLiteBackup.column(path: copy, "SELECT count(*) FROM pairs") == ["200"])
            #expect(try SQLiteBackup.column(path: path, "SELECT count(*) FROM pairs") == ["202"])
        }
    }

    @Test func reportsAFileThatIsNotADatabase() async throws {
        try await FastSQLiteTests.withDatabase { path in
            try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
            #expect(throws: SQLiteEngineError.self) { try SQLiteBackup.integrityProblem(path: path) }
            #expect(throws: SQLiteEngineError.self) { try SQLiteBackup.copy(from: path + ".missing", to: path + ".copy") }
        }
    }
}
