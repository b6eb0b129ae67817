import Foundation
import RedeemCore
import Synchronization

/// A batch's code hashes (`OfferCode.storedHash`: 32 hex characters), handed to the store a chunk at a time. Hashes in ascending order
/// across the chunks insert fastest (appends to the key's B-tree).
public protocol CodeHashChunks: Sendable {
    /// Starts again from the first chunk (a transaction the database aborted runs again).
    func rewind() async throws
    /// The next chunk, or nil when all were handed over.
    func next() async throws -> [String]?
    /// The next chunk as bulk-copy rows (`SQLBulkCopying`): each hash followed by `suffix`, which ends its row; and how
    /// many hashes it holds. Nil when all were handed over; the store commits only after that nil.
    func nextRows(suffix: [UInt8]) async throws -> (rows: [UInt8], count: Int)?
}

extension CodeHashChunks {
    public func nextRows(suffix: [UInt8]) async throws -> (rows: [UInt8], count: Int)? {
        guard let chunk = try await next() else { return nil }
        var rows: [UInt8] = []
        rows.reserveCapacity(chunk.count * (32 + suffix.count))
        for hash in chunk {
            rows.append(contentsOf: hash.utf8)
            rows.append(contentsOf: suffix)
        }
        return (rows, chunk.count)
    }
}

/// Hashes already in memory, as chunks of `chunkSize`.
public final class CodeHashList: CodeHashChunks {
    let hashes: [String]
    let chunkSize: Int
    private let position = Mutex(0)

    public init(_ hashes: [String], chunkSize: Int = 50_000) {
        self.hashes = hashes
        self.chunkSize = max(1, chunkSize)
    }

    public func rewind() { position.withLock { $0 = 0 } }

    public func next() -> [String]? {
        position.withLock { start in
            guard start < hashes.count else { return nil }
            let end = min(hashes.count, start + chunkSize)
            defer { start = end }
            return Array(hashes[start..<end])
        }
    }
}

extension SQLStore {
    /// Stores a batch and its codes' hashes in one transaction: all of them or none.
    /// Hashes in ascending order insert fastest (appends to the key's B-tree). `progress` gets the number stored so far.
    public func createCodeBatch(
        _ batch: OfferCodeBatch, codeHashes: [String], audit: AuditEntry? = nil, progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws {
        var batch = batch
        batch.count = codeHashes.count
        try await createCodeBatch(batch, hashes: CodeHashList(codeHashes), audit: audit, progress: progress)
    }

    /// Stores a batch and its `batch.count` codes' hashes, read a chunk at a time from `hashes`, in one transaction with
    /// `audit`: all of them or none (a chunk that fails, a duplicate code, or a count that does not match leaves nothing).
    /// SQLite gets multi-row INSERTs, PostgreSQL one `COPY … FROM STDIN` for the batch. `progress` gets the number stored
    /// (on PostgreSQL, handed to the COPY) so far.
    public func createCodeBatch(
        _ batch: OfferCodeBatch, hashes: some CodeHashChunks, audit: AuditEntry? = nil, progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws {
        try await write(audit: audit) { connection in
            try await hashes.rewind()
            _ = try await Self.offer(appID: batch.appID, id: batch.offerID, on: connection)
            // Codes name their batch by a small number (migration 30): the largest plus one from SQLite's one writer, a
            // sequence on PostgreSQL, where batches may be stored at once.
            let nextRef: SQL =
                connection.engine == .postgres ? "nextval('offer_code_batch_refs')" : "(SELECT COALESCE(MAX(ref), 0) + 1 FROM offer_code_batches)"
            guard
                let ref = try await connection.first(
                    """
                    INSERT INTO offer_code_batches (id, app_id, offer_id, code_count, expires_at, active, created_at, ref)
                    VALUES (\(batch.id), \(batch.appID), \(batch.offerID), \(batch.count), \(batch.expiresAt), \(batch.isActive),
                        \(batch.createdAt), \(sql: nextRef))
                    RETURNING ref
                    """)?.int("ref")
            else { throw StoreError.notFound("the new batch's number") }
            let stored: Int
            if let bulk = connection as? any SQLBulkCopying {
                // One COPY for the batch. Its rows: hashes are hex and the batch a number, so nothing needs escaping.
                let suffix = Array("\t\(ref)\n".utf8)
                let handed = Mutex(0)
                let count = batch.count
                try await bulk.copy(into: "offer_codes", columns: ["code_hash", "batch_ref"]) {
                    guard let (rows, n) = try await hashes.nextRows(suffix: suffix) else { return nil }
                    let total = handed.withLock { handed in
                        handed += n
                        return handed
                    }
                    guard total <= count else { throw StoreError.conflict("the batch has \(count) codes but \(total) or more were handed over") }
                    progress(total)
                    return rows
                }
                stored = handed.withLock { $0 }
            } else {
                // The next chunk is read on another thread while this one is inserted: the writer's thread runs every
                // statement without suspending, so a child task left on it would wait.
                let read = { @Sendable () async throws -> [String]? in try await hashes.next() }
                stored = try await withThrowingTaskGroup(of: [String]?.self) { group in
                    var stored = 0
                    group.addTask(executorPreference: globalConcurrentExecutor, operation: read)
                    while let chunk = try await group.next() ?? nil, stored + chunk.count <= batch.count {
                        group.addTask(executorPreference: globalConcurrentExecutor, operation: read)
                        try await Self.insertCodeHashes(chunk, batchRef: ref, on: connection)
                        stored += chunk.count
                        progress(stored)
                    }
                    return stored
                }
            }
            guard stored == batch.count else {
                throw StoreError.conflict("the batch has \(batch.count) codes but \(stored) or more were handed over")
            }
        }
    }

    /// Multi-row INSERTs of 1,000 rows (one prepared statement, reused).
    static func insertCodeHashes(_ hashes: [String], batchRef: Int64, on connection: any SQLConnection) async throws {
        let rows = 1000
        for start in stride(from: 0, to: hashes.count, by: rows) {
            let end = min(hashes.count, start + rows)
            var sql = SQL(stringLiteral: end - start == rows ? fullInsert : insertText(rows: end - start))
            sql.binds.reserveCapacity((end - start) + 1)
            sql.binds.append(.int(batchRef))
            for i in start..<end { sql.binds.append(.text(hashes[i])) }
            try await connection.query(sql)
        }
    }

    private static let fullInsert = insertText(rows: 1000)

    /// `$1` is the batch, `$2`… the hashes.
    private static func insertText(rows: Int) -> String {
        "INSERT INTO offer_codes (code_hash, batch_ref) VALUES " + (0..<rows).map { "($\($0 + 2), $1)" }.joined(separator: ", ")
    }

    /// The app's batches (or one offer's), newest first, with how many codes each has had redeemed.
    public func codeBatches(appID: String, offerID: String? = nil) async throws -> [OfferCodeBatch] {
        try await read { connection in
            try await Self.requireApp(appID, on: connection)
            var sql: SQL = """
                SELECT b.*, (SELECT COUNT(*) FROM offer_redemptions r WHERE r.batch_id = b.id) AS redeemed
                FROM offer_code_batches b WHERE b.app_id = \(appID)
                """
            if let offerID {
                sql.binds.append(.text(offerID))
                sql.text += " AND b.offer_id = $\(sql.binds.count)"
            }
            sql.text += " ORDER BY b.created_at DESC, b.id"
            return try await connection.query(sql).map(OfferCodeBatch.init(row:))
        }
    }

    /// Switches a batch on or off; its codes follow.
    public func setCodeBatchActive(appID: String, id: String, active: Bool, audit: AuditEntry? = nil) async throws -> OfferCodeBatch {
        try await write(audit: audit) { connection in
            guard
                let row = try await connection.first(
                    """
                    UPDATE offer_code_batches SET active = \(active) WHERE app_id = \(appID) AND id = \(id) RETURNING *
                    """)
            else {
                throw StoreError.notFound("code batch '\(id)'")
            }
            return try OfferCodeBatch(row: row)
        }
    }

    public func createCustomCode(_ code: CustomOfferCode, audit: AuditEntry? = nil) async throws {
        try await write(audit: audit) { connection in
            _ = try await Self.offer(appID: code.appID, id: code.offerID, on: connection)
            do {
                try await connection.query(
                    """
                    INSERT INTO offer_custom_codes (id, app_id, offer_id, code, max_redemptions, expires_at, active, created_at)
                    VALUES (\(code.id), \(code.appID), \(code.offerID), \(code.code), \(code.maxRedemptions), \(code.expiresAt),
                        \(code.isActive), \(code.createdAt))
                    """)
            } catch let error as StoreError where error.isConflict {
                throw StoreError.conflict("the app already has a custom code '\(code.code)'")
            }
            let stripes = (0..<StripedCount.stripes).map { [SQLValue.text(code.id), .int(Int64($0)), .int(0)] }
            try await connection.query("INSERT INTO offer_custom_code_stripes (code_id, stripe, used) \(sql: .values(stripes))")
        }
    }

    /// A custom code's columns as `CustomOfferCode(row:)` reads them, `c` being the code: its uses are the sum of its
    /// stripes (`StripedCount`).
    static let customCodeColumns: SQL = """
        c.*, (SELECT CAST(COALESCE(SUM(s.used), 0) AS BIGINT) FROM offer_custom_code_stripes s WHERE s.code_id = c.id) AS redemption_count
        """

    /// The app's custom codes (or one offer's), oldest first.
    public func customCodes(appID: String, offerID: String? = nil) async throws -> [CustomOfferCode] {
        try await read { connection in
            try await Self.requireApp(appID, on: connection)
            let rows =
                if let offerID {
                    try await connection.query(
                        """
                        SELECT \(sql: Self.customCodeColumns) FROM offer_custom_codes c
                        WHERE c.app_id = \(appID) AND c.offer_id = \(offerID) ORDER BY c.created_at, c.id
                        """)
                } else {
                    try await connection.query(
                        "SELECT \(sql: Self.customCodeColumns) FROM offer_custom_codes c WHERE c.app_id = \(appID) ORDER BY c.created_at, c.id")
                }
            return try rows.map(CustomOfferCode.init(row:))
        }
    }

    public func setCustomCodeActive(appID: String, id: String, active: Bool, audit: AuditEntry? = nil) async throws -> CustomOfferCode {
        try await write(audit: audit) { connection in
            try await connection.query("UPDATE offer_custom_codes SET active = \(active) WHERE app_id = \(appID) AND id = \(id)")
            guard
                let row = try await connection.first(
                    "SELECT \(sql: Self.customCodeColumns) FROM offer_custom_codes c WHERE c.app_id = \(appID) AND c.id = \(id)")
            else {
                throw StoreError.notFound("custom code '\(id)'")
            }
            return try CustomOfferCode(row: row)
        }
    }
}

extension OfferCodeBatch {
    init(row: SQLRow) throws {
        self.init(
            id: try row.string("id"), appID: try row.string("app_id"), offerID: try row.string("offer_id"),
            count: Int(try row.int("code_count")), expiresAt: try row.date("expires_at"), isActive: try row.bool("active"),
            createdAt: try row.date("created_at"), redeemed: row.optionalInt("redeemed").map(Int.init)
        )
    }
}

extension CustomOfferCode {
    init(row: SQLRow) throws {
        self.init(
            id: try row.string("id"), appID: try row.string("app_id"), offerID: try row.string("offer_id"), code: try row.string("code"),
            maxRedemptions: Int(try row.int("max_redemptions")), redemptionCount: Int(try row.int("redemption_count")),
            expiresAt: row.optionalDate("expires_at"), isActive: try row.bool("active"), createdAt: try row.date("created_at")
        )
    }
}
