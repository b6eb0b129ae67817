/// Stripe's `application/x-www-form-urlencoded` bodies: nested keys as literal brackets
/// (`line_items[0][price_data][currency]=usd`), everything else percent-encoded
/// except RFC 3986 unreserved characters, fields in the given order.
enum StripeFormEncoding {
    static func encode(_ fields: [(key: String, value: String)]) -> String {
        fields.map { escape($0.key, keepBrackets: true) + "=" + escape($0.value, keepBrackets: false) }
            .joined(separator: "&")
    }

    static func escape(_ string: String, keepBrackets: Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "[") where keepBrackets, UInt8(ascii: "]") where keepBrackets:
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0f)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
