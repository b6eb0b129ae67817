/// RFC 2045 quoted-printable for UTF-8 text bodies, with CRLF line endings.
enum QuotedPrintable {
    /// Encoded lines stay within 76 columns, counting a soft break's `=`.
    static let maxLineLength = 76

    static func encode(_ text: String) -> String {
        lines(of: Array(text.utf8)).map(encodeLine).joined(separator: "\r\n")
    }

    /// Splits on CRLF, CR or LF.
    private static func lines(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0D || byte == 0x0A {
                result.append(bytes[start..<index])
                index += (byte == 0x0D && index + 1 < bytes.count && bytes[index + 1] == 0x0A) ? 2 : 1
                start = index
            } else {
                index += 1
            }
        }
        result.append(bytes[start..<bytes.count])
        return result
    }

    private static func encodeLine(_ line: ArraySlice<UInt8>) -> String {
        var output = ""
        var column = 0
        for (offset, byte) in zip(line.indices, line) {
            let isLast = offset == line.endIndex - 1
            let literal =
                ((0x21...0x7E).contains(byte) && byte != UInt8(ascii: "="))
                || ((byte == 0x20 || byte == 0x09) && !isLast)  // trailing blanks may be stripped in transit
            let token = literal ? String(UnicodeScalar(byte)) : hex(byte)
            if column + token.utf8.count > maxLineLength - 1 {
                output += "=\r\n"
                column = 0
            }
            output += token
            column += token.utf8.count
        }
        return output
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "=\(digits[Int(byte >> 4)])\(digits[Int(byte & 0x0F)])"
    }
}
