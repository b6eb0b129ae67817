import NIOCore
import PostgresNIO
import SQLKernel

extension PostgresSession {
    /// One `COPY table (columns) FROM STDIN` in text format for all the chunks: the server never waits for a new COPY to
    /// start, and the next chunk is made (by `next`, in a child task) while the current one is sent.
    func copy(into table: String, columns: [String], chunks next: @escaping @Sendable () async throws -> [UInt8]?) async throws {
        do {
            try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
                var current = try await next()
                while let chunk = current {
                    async let following = next()
                    try await writer.write(ByteBuffer(bytes: chunk))
                    current = try await following
                }
            }
        } catch {
            throw PostgresErrors.neutral(error)
        }
    }
}
