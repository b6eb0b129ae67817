import Foundation
import SQLKernel
import Synchronization
import Testing

@testable import FastSQLite

// The time limit is a hang guard for the waits that end on an event (a checkpoint, a queued writer), not a speed check.
@Suite("FastSQLiteBackend", .timeLimit(.minutes(5)))
struct FastSQLiteTests {
    struct Boom: Error {}

    /// A fresh database file in its own directory, removed afterwards.
    static func withDatabase<T>(_ body: (String) async throws -> T) async throws -> T {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fastsqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        return try await body(dir.appendingPathComponent("db.sqlite").path)
    }

    @available(macOS 15.0, iOS 18.0, *)
    static func withBackend<T>(
        readers: Int = 2, cacheSize: Int = 256, groupCommit: Bool = false, _ body: (FastSQLiteBackend) async throws -> T
    ) async throws -> T {
        try await withDatabase { path in
            let db = try await FastSQLiteBackend.open(path: path, readerCount: readers, statementCacheSize: cacheSize, groupCommit: groupCommit)
            do {
                let result = try await body(db)
                await db.close()
                return result
            } catch {
                await db.close()
                throw error
            }
        }
    }

    static func sql(_ text: String, _ binds: [SQLValue]) -> SQL {
        var sql = SQL(stringLiteral: text)
        sql.binds = binds
        return sql
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func roundTripsEveryValueType() async throws {
        try await Self.withBackend { db in
            let none: String? = nil
            let rows = try await db.transaction { c in
                try await c.query("CREATE TABLE v (i INTEGER, r REAL, t TEXT, n, b BLOB)")
                try await c.query("INSERT INTO v VALUES (\(Int64.max), \(-2.5), \("héllo 👋"), \(none), x'6869')")
                try await c.query("INSERT INTO v VALUES (\(Int64.min), \(0.0), \(""), \(true), NULL)")
                return try await c.query("SELECT i, r, t, n, b, i AS i FROM v ORDER BY i DESC")
            }
            #expect(rows.count == 2)
            #expect(rows[0].values == [.int(.max), .double(-2.5), .text("héllo 👋"), .null, .text("hi"), .int(.max)])
            #expect(rows[1].values == [.int(.min), .double(0), .text(""), .int(1), .null, .int(.min)])
            #expect(rows[0].columns === rows[1].columns)
            #expect(try rows[1].string("t") == "")
            #expect(rows[0]["missing"] == .null)
            let empty = try await db.read { try await $0.query("SELECT i FROM v WHERE i = 0") }
            #expect(empty.isEmpty)
        }
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func numberedPlaceholdersReusedAndOutOfOrder() async throws {
        try await Self.withBackend { db in
            let row = try await db.read { c in
                try await c.first(Self.sql("SELECT $2 AS b, $1 AS a, $2 AS b2, $2 || $1 AS ba", [.text("a"), .text("b")]))
            }
            #expect(row?.values == [.text("b"), .text("a"), .text("b"), .text("ba")])
            let twelve = (1...12).map { SQLValue.int(Int64($0)) }
            let text = "SELECT " + (1...12).reversed().map { "$\($0)" }.joined(separator: ", ")
            let wide = try await db.read { try await $0.first(Self.sql(text, twelve)) }
            #expect(wide?.values == twelve.reversed())
        }
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func uniqueViolationsMapToStoreError() async throws {
        try await Self.withBackend { db in
            try await db.transaction { c in
                try await c.query("CREATE TABLE u (id TEXT PRIMARY KEY, email TEXT UNIQUE)")
                try await c.query("INSERT INTO u VALUES ('1', 'a@x')")
            }
            for insert: SQL in ["INSERT INTO u VALUES ('2', 'a@x')", "INSERT INTO u VALUES ('1', 'b@x')"] {
                let error = await #expect(throws: StoreError.self) { try await db.transaction { try await $0.query(insert) } }
                #expect(error?.isConflict == true)
                #expect(error?.description.contains("UNIQUE constraint failed") == true)
            }
        }
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func otherErrorsCarryTheStatementButNoValues() async throws {
        try await Self.withBackend { db in
            let long = "SELECT nope FROM missing_table WHERE secret = $1 " + String(repeating: "AND 1 = 1 ", count: 20)
            let error = await #expect(throws: SQLiteEngineError.self) {
                try await db.read { try await $0.query(Self.sql(long, [.text("hunter2")])) }
            }
            #expect(error?.statement == String(long.prefix(80)))
            #expect(error?.description.contains("no such table") == true)
            #expect(error?.description.contains("hunter2") == false)
            let one = try await db.read { try await $0.first("SELECT 1 AS one") }
            #expect(one?["one"] == .int(1))
        }
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func throwingBodyRollsBack() async throws {
        try await Self.withBackend { db in
            _ = try await db.transaction { try await $0.query("CREATE TABLE t (x INTEGER)") }
            await #expect(throws: Boom.self) {
                try await db.transaction { c in
                    try await c.query("INSERT INTO t VALUES (1)")
                    throw Boom()
                }
            }
            _ = try await db.transaction { try await $0.query("INSERT INTO t VALUES (2)") }
            let rows = try await db.read { try await $0.query("SELECT x FROM t") }
            #expect(rows.map(\.values) == [[.int(2)]])
        }
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func concurrentTransactionsAreSerialized() async throws {
        try await Self.withBackend { db in
            try await db.transaction { c in
                try await c.query("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
                try await c.query("INSERT INTO counter VALUES (1, 0)")
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        try await db.transaction { c in
                            let n = try await c.first("SELECT n FROM counter WHERE id = 1")?.int("n") ?? -1
                            await Task.yield()  // a suspension inside the transaction must not let another in
                            try await c.query("UPDATE counter SET n = \(n + 1) WHERE id = 1")
                        }
                    }
                }
                try await group.waitForAll()
            }
            let n = try await db.read { try await $0.first("SELECT n FROM counter")?.int("n") }
            #expect(n == 100)
        }
    }

    final class Flag: Sendable {
        let raised = Atomic(false)
    }

    static func failure(_ operation: () async throws -> Void) async -> (any Error)? {
        do {
            try await operation()
            return nil
        } catch {
            return error
        }
    }

    /// Runs a transaction doing `first`, which then holds the writer until `count` more transactions,
    /// doing `queued`, wait behind it in order; `afterward` runs in each queued caller's task once its transaction
    /// has returned. Returns how each failed, nil for success.
    @available(macOS 15.0, iOS 18.0, *)
    static func holdingWriter(
        _ db: FastSQLiteBackend, count: Int,
        first: @escaping @Sendable (any SQLConnection) async throws -> Void,
        queued: @escaping @Sendable (Int, any SQLConnection) async throws -> Void,
        afterward: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async -> [(any Error)?] {
        let holding = Flag()
        let queuedAll = Flag()
        return await withTaskGroup(of: (Int, (any Error)?).self) { group in
            group.addTask {
                let error = await failure {
                    try await db.transaction { c in
                        try await first(c)
                        holding.raised.store(true, ordering: .releasing)
                        while !queuedAll.raised.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
                    }
                }
                return (0, error)
            }
            while !holding.raised.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(1)) }
            for i in 1...count {
                group.addTask {
                    let error = await failure { try await db.transaction { try await queued(i, $0) } }
                    await afterward(i)
                    return (i, error)
                }
                while db.writeGate.waiterCount < i { try? await Task.sleep(for: .milliseconds(1)) }
            }
            queuedAll.raised.store(true, ordering: .releasing)
            var results: [(any Error)?] = Array(repeating: nil, count: count + 1)
            for await (i, error) in group { results[i] = error }
            return results
        }
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func groupCommitSharesOneCommitAndIsolatesFailures() async throws {
        try await Self.withBackend(groupCommit: true) { db in
            _ = try await db.transaction { try await $0.query("CREATE TABLE g (n INTEGER UNIQUE)") }
            let commitsBefore = db.group?.commits ?? 0
            let results = await Self.holdingWriter(db, count: 10, first: { try await $0.query("INSERT INTO g VALUES (0)") }) { i, c in
                try await c.query("INSERT INTO g VALUES (\(i))")
                if i == 5 { throw Boom() }
            }
            #expect(results.map { $0 == nil } == (0...10).map { $0 != 5 })
            #expect(results[5] is Boom)
            #expect(db.group?.commits == commitsBefore + 1)
            let rows = try await db.read { try await $0.query("SELECT n FROM g ORDER BY n") }
            #expect(rows.map(\.values) == (0...10).filter { $0 != 5 }.map { [.int(Int64($0))] })
        }
    }

    /// A member that throws returns only after the group's COMMIT, as one that succeeds: what it refused may rest on
    /// rows earlier members wrote, and its caller must find them on a reader (a repeated form submit, refused as
    /// already done, then shows the first submit's purchase).
    @available(macOS 15.0, iOS 18.0, *)
    @Test func aMemberThatThrowsReturnsOnlyOnceWhatItSawIsCommitted() async throws {
        try await Self.withBackend(groupCommit: true) { db in
            _ = try await db.transaction { try await $0.query("CREATE TABLE g (n INTEGER UNIQUE)") }
            let seenInside = Atomic(-1)
            let seenAfter = Atomic(-1)
            let read = Flag()
            let count: @Sendable (any SQLConnection) async throws -> Int = { Int(try await $0.first("SELECT COUNT(*) AS n FROM g")?.int("n") ?? -1) }
            let results = await Self.holdingWriter(db, count: 3, first: { try await $0.query("INSERT INTO g VALUES (0)") }) { i, c in
                switch i {
                case 1: try await c.query("INSERT INTO g VALUES (1)")
                case 2:
                    seenInside.store(try await count(c), ordering: .relaxed)
                    throw Boom()
                default:
                    // Keeps the group open until the refused caller has read (it could, returning before the COMMIT),
                    // or half a second: the group then commits and the refused caller returns.
                    for _ in 0..<500 where !read.raised.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
                }
            } afterward: { i in
                guard i == 2 else { return }
                seenAfter.store((try? await db.read(count)) ?? -2, ordering: .relaxed)
                read.raised.store(true, ordering: .releasing)
            }
            #expect(results[2] is Boom)
            #expect(results.enumerated().allSatisfy { $0.offset == 2 || $0.element == nil })
            #expect(seenInside.load(ordering: .relaxed) == 2)
            #expect(seenAfter.load(ordering: .relaxed) == 2, "the refused caller read before the rows it was refused on were committed")
        }
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func groupCommitFailsTheGroupWhenSQLiteRollsItBack() async throws {
        try await Self.withBackend(groupCommit: true) { db in
            _ = try await db.transaction { try await $0.query("CREATE TABLE g (n INTEGER UNIQUE)") }
            let results = await Self.holdingWriter(db, count: 3, first: { try await $0.query("INSERT INTO g VALUES (0)") }) { i, c in
                // The second one's conflict rolls back the whole shared transaction: 0 and 1 are lost too.
                try await c.query(SQL(stringLiteral: i == 2 ? "INSERT OR ROLLBACK INTO g VALUES (0)" : "INSERT INTO g VALUES (\(i))"))
            }
            for lost in results[0...1] { #expect((lost as? SQLiteEngineError)?.isRetryable == true) }
            #expect((results[2] as? StoreError)?.isConflict == true)
            #expect(results[3] == nil)
            let rows = try await db.read { try await $0.query("SELECT n FROM g") }
            #expect(rows.map(\.values) == [[.int(3)]])
        }
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test(arguments: [false, true])
    func concurrentIncrementsWithAndWithoutGroupCommit(groupCommit: Bool) async throws {
        try await Self.withBackend(groupCommit: groupCommit) { db in
            try await db.transaction { c in
                try await c.query("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
                try await c.query("INSERT INTO counter VALUES (1, 0)")
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<200 {
                    group.addTask {
                        try await db.transaction { c in
                            let n = try await c.first("SELECT n FROM counter WHERE id = 1")?.int("n") ?? -1
                            try await c.query("UPDATE counter SET n = \(n + 1) WHERE id = 1")
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await db.read { try await $0.first("SELECT n FROM counter")?.int("n") } == 200)
        }
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func readersSeeCommittedData() async throws {
        try await Self.withBackend(readers: 3) { db in
            try await db.transaction { c in
                try await c.query("CREATE TABLE k (v TEXT)")
                try await c.query("INSERT INTO k VALUES ('committed')")
            }
            try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await db.read { try await $0.first("SELECT v FROM k")?.optionalString("v") } }
                }
                for try await value in group { #expect(value == "committed") }
            }
        }
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func preparedStatementsAreReused() async throws {
        try await Self.withBackend(cacheSize: 4) { db in
            _ = try await db.transaction { try await $0.query("CREATE TABLE s (x INTEGER)") }
            _ = try await db.transaction { try await $0.query("INSERT INTO s VALUES (\(0))") }
            let before = try await db.writer.statementStats().prepared
            for i in 1...1000 {
                _ = try await db.transaction { try await $0.query("INSERT INTO s VALUES (\(i))") }
            }
            #expect(try await db.writer.statementStats().prepared == before)
            // Past the cache size the least recently used statement is evicted: here six SELECTs evict
            // COMMIT too, which is prepared again.
            try await db.transaction { c in
                for i in 0..<6 { try await c.query(SQL(stringLiteral: "SELECT \(i) AS n")) }
            }
            let stats = try await db.writer.statementStats()
            #expect(stats.cached == 4)
            #expect(stats.prepared == before + 7)
        }
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func changeTokenMovesOnlyAfterCommits() async throws {
        try await Self.withDatabase { path in
            let a = try await FastSQLiteBackend.open(path: path, readerCount: 1)
            let b = try await FastSQLiteBackend.open(path: path, readerCount: 1)
            _ = try await b.transaction { try await $0.query("CREATE TABLE c (x INTEGER)") }
            let t0 = try await a.changeToken()
            #expect(try await a.changeToken() == t0)
            _ = try await b.transaction { try await $0.query("INSERT INTO c VALUES (1)") }
            let t1 = try await a.changeToken()
            #expect(t1 != t0)
            #expect(try await a.changeToken() == t1)
            _ = try await b.read { try await $0.query("SELECT * FROM c") }
            #expect(try await a.changeToken() == t1)
            _ = try await a.transaction { try await $0.query("INSERT INTO c VALUES (2)") }
            #expect(try await a.changeToken() != t1)
            await a.close()
            await b.close()
        }
    }

    /// A backend that checkpoints past `checkpointFrames`, with a table whose rows fill about a page each; the body
    /// gets the backend, the file's path and a function adding one row.
    @available(macOS 15.0, iOS 18.0, *)
    static func withPageTable(
        checkpointFrames: Int32, _ body: (FastSQLiteBackend, String, () async throws -> Void) async throws -> Void
    ) async throws {
        try await withDatabase { path in
            let db = try await FastSQLiteBackend.open(path: path, readerCount: 1, groupCommit: true, checkpointFrames: checkpointFrames)
            let filler = String(repeating: "x", count: 3000)
            do {
                _ = try await db.transaction { try await $0.query("CREATE TABLE big (x TEXT)") }
                try await body(db, path) {
                    _ = try await db.transaction { try await $0.query(Self.sql("INSERT INTO big VALUES ($1)", [.text(filler)])) }
                }
            } catch {
                await db.close()
                throw error
            }
            await db.close()
        }
    }

    /// Adds rows (each commit past the threshold makes a pass due) until the checkpointer has copied the whole log
    /// between two of them, then expects the next commit to write from the log's start.
    @available(macOS 15.0, iOS 18.0, *)
    static func expectTheLogStartsOver(_ db: FastSQLiteBackend, insertPage: () async throws -> Void) async throws {
        // Ends on the event (the checkpointer caught up); the suite's time limit is the hang guard.
        while !db.checkpointer.caughtUp.load(ordering: .relaxed) {
            try await insertPage()
            try await Task.sleep(for: .milliseconds(10))
        }
        try await insertPage()
        let frames = db.checkpointer.lastFrames.load(ordering: .relaxed)
        #expect(frames > 0 && frames < 10)
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func theCheckpointerCopiesTheLogBackSoTheWriterStartsItOver() async throws {
        try await Self.withPageTable(checkpointFrames: 40) { db, _, insertPage in
            for _ in 0..<120 { try await insertPage() }
            try await Self.expectTheLogStartsOver(db, insertPage: insertPage)
            let count = try await db.read { try await $0.first("SELECT COUNT(*) AS n FROM big")?.int("n") }
            #expect(count ?? 0 >= 121)
        }
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func aReaderOnAnOldSnapshotGetsABoundedRestartAndWritesGoOn() async throws {
        try await Self.withPageTable(checkpointFrames: 20) { db, path, insertPage in
            // Another connection holds a read transaction: no pass can copy what was committed after its snapshot.
            let pin = try FastSQLiteConnection(path: path, isWriter: false, cacheSize: 4)
            _ = try pin.execute("BEGIN")
            _ = try pin.execute("SELECT count(*) FROM big")
            for _ in 0..<200 { try await insertPage() }
            // The log passed 16 × 20 frames: a RESTART was tried (and gave up after its short wait), and writing went on.
            // Ends on the event: a RESTART tried; the suite's time limit is the hang guard.
            while db.checkpointer.restarts.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(10)) }
            // The reader ends; the next passes copy everything and the log starts over.
            _ = try pin.execute("COMMIT")
            pin.close()
            try await Self.expectTheLogStartsOver(db, insertPage: insertPage)
        }
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func bodiesRunOnTheConnectionThreadWithoutHops() async throws {
        try await Self.withBackend { db in
            let hopsBefore = db.writer.hops.load(ordering: .relaxed)
            let onThread = try await db.transaction { c in
                var seen: [Bool] = []
                let thread = pthread_self()
                seen.append((c as? FastSQLiteSession)?.isOnConnectionThread == true)
                for _ in 0..<5 {
                    try await c.query("SELECT 1")
                    seen.append(pthread_equal(thread, pthread_self()) != 0)
                }
                return seen
            }
            #expect(onThread == Array(repeating: true, count: 6))
            #expect(db.writer.hops.load(ordering: .relaxed) == hopsBefore)
            let reader = try await db.read { c in
                try await c.query("SELECT 1")
                return (c as? FastSQLiteSession)?.isOnConnectionThread == true
            }
            #expect(reader)
        }
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func queriesFromOtherExecutorsHopToTheConnection() async throws {
        try await Self.withBackend { db in
            let value = try await db.transaction { c in
                // A task without the preference hops, but still uses the transaction's connection.
                try await Task.detached { try await c.first("SELECT 7 AS n")?.int("n") }.value
            }
            #expect(value == 7)
            #expect(db.writer.hops.load(ordering: .relaxed) >= 1)
        }
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func escapedConnectionsAndClosedBackendsAreRefused() async throws {
        try await Self.withDatabase { path in
            let db = try await FastSQLiteBackend.open(path: path, readerCount: 1)
            let escaped = try await db.transaction { $0 }
            let misuse = await #expect(throws: SQLiteEngineError.self) { try await escaped.query("SELECT 1") }
            #expect(misuse?.isClosed == false)
            await db.close()
            await db.close()
            let closed = await #expect(throws: SQLiteEngineError.self) { try await db.transaction { try await $0.query("SELECT 1") } }
            #expect(closed?.isClosed == true)
            await #expect(throws: SQLiteEngineError.self) { try await db.read { try await $0.query("SELECT 1") } }
        }
    }
}

/// A statement put inside another keeps its values, its placeholders numbered after the outer ones.
@Suite struct SQLFragmentTests {
    @Test func aFragmentsPlaceholdersAreRenumbered() {
        let inner: SQL = "UPDATE t SET a = \(7) WHERE b = \("x") AND c = \(Int64(12))"
        let outer: SQL = "WITH u AS (\(sql: inner) RETURNING id) SELECT \(1), '$1 stays' FROM u WHERE d = \("y")"
        #expect(outer.text == "WITH u AS (UPDATE t SET a = $1 WHERE b = $2 AND c = $3 RETURNING id) SELECT $4, '$1 stays' FROM u WHERE d = $5")
        #expect(outer.binds == [.int(7), .text("x"), .int(12), .int(1), .text("y")])
    }

    @Test func aFragmentAfterOuterValuesIsNumberedAfterThem() {
        let values = (1...11).map { "v\($0)" }
        var inner = SQL(stringLiteral: "SELECT 'é$', " + (1...11).map { "$\($0)" }.joined(separator: ", ") + " FROM \"日本\" WHERE x = '$' || $1")
        inner.binds = values.map { .text($0) }
        let outer: SQL = "WITH w AS (SELECT \(1), \(2)) \(sql: inner) AND y = \(3)"
        #expect(
            outer.text
                == "WITH w AS (SELECT $1, $2) SELECT 'é$', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 FROM \"日本\" WHERE x = '$' || $3 AND y = $14"
        )
        #expect(outer.binds == [.int(1), .int(2)] + values.map { .text($0) } + [.int(3)])
    }

    @available(macOS 15.0, iOS 18.0, *)
    @Test func aValuesListBindsEveryRowInOrder() async throws {
        let rows: [[SQLValue]] = [[.int(1), .text("a")], [.int(2), .null], [.int(3), .text("c")]]
        let values = SQL.values(rows)
        #expect(values.text == "VALUES ($1, $2), ($3, $4), ($5, $6)")
        #expect(values.binds == rows.flatMap { $0 })
        let read = try await FastSQLiteTests.withBackend { database in
            // SQLite names a VALUES list's columns column1, column2, …
            try await database.read {
                try await $0.query("SELECT \(10) AS k, column1 AS n, column2 AS s FROM (\(sql: values)) ORDER BY n DESC")
            }
        }
        #expect(try read.map { try $0.int("n") } == [3, 2, 1])
        #expect(read.map { $0.optionalString("s") } == ["c", nil, "a"] && read.allSatisfy { $0["k"] == .int(10) })
    }
}
