import NIOCore
import PostgresNIO
import SQLKernel

extension PostgresSession {
    /// One `COPY offer_codes (code_hash, batch_id) FROM STDIN` in text format: a line per hash. Hashes are hex and
    /// batch IDs `batch_` and hex, so nothing needs escaping. A duplicate hash fails the COPY (and the transaction).
    func copyCodeHashes(_ hashes: [String], batchID: String) async throws {
        precondition(batchID.utf8.allSatisfy { $0 > 0x20 && $0 != UInt8(ascii: "\\") }, "a batch ID that COPY would need escaped")
        let suffix = "\t" + batchID + "\n"
        var buffer = ByteBufferAllocator().buffer(capacity: min(hashes.count, 8192) * (64 + suffix.utf8.count))
        do {
            try await connection.copyFrom(table: "offer_codes", columns: ["code_hash", "batch_id"], logger: logger) { writer in
                for (i, hash) in hashes.enumerated() {
                    buffer.writeString(hash)
                    buffer.writeString(suffix)
                    if (i + 1) % 8192 == 0 {
                        try await writer.write(buffer)
                        buffer.clear()
                    }
                }
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw StoreError.uniqueViolation(error.serverInfo?[.message] ?? "unique violation")
        }
    }
}
