/// Writes JSON byte for byte as the server's `JSONEncoder` does (sorted keys, slashes unescaped, integral doubles
/// without `.0`), for the answers on the hot paths. On Linux `JSONEncoder` took about 110 µs to write a redemption's
/// answer, 12–15% of the server's CPU per redemption; this takes a few. Callers write an object's keys in sorted order
/// (`JSONWriterTests` compares every writer with `JSONEncoder`).
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// Whether the next key or value follows another and needs a comma.
    private var needsComma = false

    public init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// An object's key; its value comes next.
    public mutating func key(_ key: String) {
        separate()
        quoted(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) {
        separate()
        quoted(value)
        needsComma = true
    }

    /// A string, or `null`.
    public mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    /// A value that is already JSON (checked by whoever stored it), written as it is.
    public mutating func json(_ text: String) {
        separate()
        raw(text)
        needsComma = true
    }

    public mutating func int(_ value: Int64) {
        separate()
        raw(String(value))
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        raw(value ? "true" : "false")
        needsComma = true
    }

    /// Swift's shortest round-trip form, as `JSONEncoder` writes it: `9.99`, `9` (not `9.0`), `1e+16`. JSON has no
    /// NaN or infinity (`JSONEncoder` throws on them); they are written as `null` rather than as invalid JSON.
    public mutating func double(_ value: Double) {
        guard value.isFinite else { return null() }
        separate()
        let text = value.description
        raw(text.hasSuffix(".0") ? String(text.dropLast(2)) : text)
        needsComma = true
    }

    public mutating func null() {
        separate()
        raw("null")
        needsComma = true
    }

    /// A key and its value: one line per field in the writers.
    public mutating func field(_ name: String, _ value: String?) {
        key(name)
        string(value)
    }

    public mutating func field(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }

    public mutating func field(_ name: String, _ value: Int64) {
        key(name)
        int(value)
    }

    public mutating func field(_ name: String, _ values: [String]) {
        key(name)
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    /// A value that writes itself, or `null`.
    public mutating func field(_ name: String, _ value: (some JSONWritable)?) {
        key(name)
        if let value { value.writeJSON(to: &self) } else { null() }
    }

    /// A dictionary as an object, its keys sorted as `JSONEncoder`'s `.sortedKeys` sorts them.
    public mutating func object<Value>(_ dictionary: [String: Value], _ write: (inout JSONWriter, Value) -> Void) {
        beginObject()
        for key in dictionary.keys.sorted(by: Self.precedes) {
            self.key(key)
            write(&self, dictionary[key]!)
        }
        endObject()
    }

    /// `.sortedKeys`' order: UTF-8 bytes, unnormalized (Swift's `<` compares normalized text, and differs).
    public static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// JSON's escapes for `"`, `\` and the control characters; everything else as UTF-8, `/` included.
    private mutating func quoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        let utf8 = text.utf8
        if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(Self.hex[Int(byte >> 4)])
                bytes.append(Self.hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

/// A value that writes its own JSON, byte for byte what `JSONEncoder` would write for it.
public protocol JSONWritable {
    func writeJSON(to writer: inout JSONWriter)
}
