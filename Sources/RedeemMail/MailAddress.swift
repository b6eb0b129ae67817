/// An e-mail address with an optional display name, validated on creation.
///
/// Only plain ASCII `local@domain` addresses are accepted (no quoted local parts, no SMTPUTF8),
/// so an address can go into both a header and the SMTP envelope unchanged.
public struct MailAddress: Sendable, Hashable, CustomStringConvertible {
    public let address: String
    public let name: String?

    public init(_ address: String, name: String? = nil) throws(MailError) {
        try Self.validate(address: address)
        if let name { try HeaderValue.checkNoLineBreaks(name, field: "display name") }
        self.address = address
        self.name = name.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The part after the `@`.
    public var domain: Substring { address[address.index(after: address.lastIndex(of: "@")!)...] }

    public var description: String { name.map { "\($0) <\(address)>" } ?? address }

    private static func validate(address: String) throws(MailError) {
        func fail(_ reason: String) -> MailError {
            MailError(.invalidHeader(field: "address", reason: reason))
        }
        guard address.utf8.count <= 254 else { throw fail("longer than 254 characters") }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw fail("expected exactly one '@' between a local part and a domain")
        }
        // Printable ASCII without whitespace and the characters that delimit addresses.
        let forbidden = Set("()<>[]:;,\\\"".utf8)
        for byte in address.utf8 where byte <= 0x20 || byte >= 0x7F || forbidden.contains(byte) {
            throw fail(byte == 0x0D || byte == 0x0A ? "contains a line break" : "contains a character not allowed in an address")
        }
        guard !parts[1].hasPrefix("."), !parts[1].hasSuffix("."), !parts[1].contains("..") else {
            throw fail("malformed domain")
        }
    }
}
