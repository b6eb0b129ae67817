import NIOCore
import PostgresNIO
import SQLKernel

extension PostgresSession {
    /// One `COPY table (columns) FROM STDIN` in text format, a line per row, sent 8,192 rows a write.
    func copy(into table: String, columns: [String], rows: [String]) async throws {
        var buffer = ByteBufferAllocator().buffer(capacity: min(rows.count, 8192) * ((rows.first?.utf8.count ?? 0) + 1))
        do {
            try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
                for (i, row) in rows.enumerated() {
                    buffer.writeString(row)
                    buffer.writeInteger(UInt8(ascii: "\n"))
                    if (i + 1) % 8192 == 0 {
                        try await writer.write(buffer)
                        buffer.clear()
                    }
                }
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
            }
        } catch {
            throw PostgresErrors.neutral(error)
        }
    }
}
