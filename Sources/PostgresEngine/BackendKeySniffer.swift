import NIOConcurrencyHelpers
import NIOCore

/// Reads the process ID in the `BackendKeyData` message a server sends at the start of a session, passing every byte
/// on unchanged to PostgresNIO's decoder behind it. PostgreSQL sends the ID of the backend that serves the session; a
/// pooler (PgBouncer, and any that routes cancel requests) sends a key of its own, since the client's session has no
/// one backend. A plain TCP proxy or NAT passes it through. Comparing it with `pg_backend_pid()` therefore tells a
/// session PostgreSQL itself serves, which `LISTEN` needs, from one a pooler lends out per transaction.
final class BackendKeySniffer: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private struct State {
        var pending = ByteBuffer()
        var processID: Int32?
        var done = false
    }

    private let state = NIOLockedValueBox(State())

    /// The process ID the session's `BackendKeyData` named; nil until it came, or when the session started without one.
    var processID: Int32? { state.withLockedValue { $0.processID } }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        state.withLockedValue { state in
            guard !state.done else { return }
            var copy = bytes
            state.pending.writeBuffer(&copy)
            state.done = Self.scan(&state.pending, into: &state.processID)
            if state.done { state.pending = ByteBuffer() }
        }
        context.fireChannelRead(data)
    }

    /// Reads whole messages from `buffer` (a type byte, then a length that counts itself): true once the key or
    /// `ReadyForQuery` ('Z', the end of the start-up) was read, or the stream is not a PostgreSQL start-up (an 'N'
    /// answer to an SSL request has no length; this listener never sends one).
    static func scan(_ buffer: inout ByteBuffer, into processID: inout Int32?) -> Bool {
        while let type = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
            let length = buffer.getInteger(at: buffer.readerIndex + 1, as: Int32.self)
        {
            guard length >= 4 else { return true }
            guard buffer.readableBytes >= 1 + Int(length) else { return false }
            if type == UInt8(ascii: "K"), length >= 12 {
                processID = buffer.getInteger(at: buffer.readerIndex + 5, as: Int32.self)
                return true
            }
            if type == UInt8(ascii: "Z") { return true }
            buffer.moveReaderIndex(forwardBy: 1 + Int(length))
        }
        return false
    }
}
