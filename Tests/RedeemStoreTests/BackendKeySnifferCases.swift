import NIOCore
import Testing

@testable import PostgresEngine

/// The session key a server sends at start-up, read from the raw stream in any chunking (`BackendKeySniffer.scan`).
@Suite struct BackendKeySnifferCases {
    /// A message: its type, a length counting itself, its payload.
    static func message(_ type: Character, _ payload: [UInt8]) -> [UInt8] {
        let length = UInt32(payload.count + 4)
        return [type.asciiValue!] + withUnsafeBytes(of: length.bigEndian) { Array($0) } + payload
    }

    static let startUp =
        message("R", [0, 0, 0, 0])  // AuthenticationOk
        + message("S", Array("server_version\u{0}16.4\u{0}".utf8))
        + message("K", [0x00, 0x01, 0xE2, 0x40, 0xDE, 0xAD, 0xBE, 0xEF])  // process 123456, then its secret
        + message("Z", [UInt8(ascii: "I")])

    /// Feeds `bytes` in chunks of `size`, as reads arrive; the ID found and the chunk that ended the scan.
    static func scanned(_ bytes: [UInt8], chunks size: Int) -> (Int32?, Int?) {
        var buffer = ByteBuffer()
        var id: Int32?
        for (index, start) in stride(from: 0, to: bytes.count, by: size).enumerated() {
            buffer.writeBytes(bytes[start..<min(start + size, bytes.count)])
            if BackendKeySniffer.scan(&buffer, into: &id) { return (id, index) }
        }
        return (id, nil)
    }

    @Test func theKeyIsReadHoweverTheStreamIsCut() {
        for size in [1, 3, 7, 12, Self.startUp.count] {
            let (id, ended) = Self.scanned(Self.startUp, chunks: size)
            #expect(id == 123_456 && ended != nil, "chunks of \(size)")
        }
    }

    @Test func aStartUpWithoutAKeyEndsAtReadyForQuery() {
        let bytes = Self.message("R", [0, 0, 0, 0]) + Self.message("Z", [UInt8(ascii: "I")])
        let (id, ended) = Self.scanned(bytes, chunks: 4)
        #expect(id == nil && ended == 3)  // the 15 bytes end in the fourth chunk
        // Until a whole message is there, nothing is decided.
        #expect(Self.scanned(Array(Self.startUp.prefix(20)), chunks: 20) == (nil, nil))
    }
}
