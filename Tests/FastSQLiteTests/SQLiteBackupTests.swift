import Foundation
import SQLKernel
import Testing

@testable import FastSQLite

@Suite("SQLiteBackup")
struct SQLiteBackupTests {
    /// A copy taken while a writer commits is one snapshot: each commit inserts a pair of rows, so a torn copy would
    /// hold an odd count.
    @available(macOS 15.0, iOS 18.0, *)
    @Test func copiesALiveDatabaseAsOneSnapshot() async throws {
        try await FastSQLiteTests.withBackend(groupCommit: true) { db in
            try await db.transaction { try await $0.query("CREATE TABLE pairs (n INTEGER)") }
            let path = db.path
            let writer = Task {
                for n in 0..<400 {
                    try await db.transaction { c in
                        try await c.query("INSERT INTO pairs VALUES (\(n))")
                        try await c.query("INSERT INTO pairs VALUES (\(n))")
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(20))
            let copy = path + ".copy"
            try SQLiteBackup.copy(from: path, to: copy)
            try await writer.value
            #expect(try SQLiteBackup.integrityProblem(path: copy) == nil)
            let copied = Int(try SQLiteBackup.column(path: copy, "SELECT count(*) FROM pairs").first ?? "") ?? -1
            #expect(copied % 2 == 0 && copied <= 800)
            #expect(try SQLiteBackup.column(path: path, "SELECT count(*) FROM pairs") == ["800"])
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
