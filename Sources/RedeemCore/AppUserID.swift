/// An app user ID as the SDK sends it: the app's own string, or an anonymous ID.
public struct AppUserID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Anonymous IDs keep RevenueCat's prefix so that apps moving from it keep working.
    public static let anonymousPrefix = "$RCAnonymousID:"
    public static let maxLength = 100
    static let blocklist: Set<String> = [
        "", "null", "none", "nil", "anonymous", "guest", "-1", "0", "[]", "{}", "undefined",
        "(null)", "<null>", "nsnull", "unknown", "user", "default", "test", "false", "true",
    ]

    /// Validates `string`, throwing a `ValidationError` on field `app_user_id`.
    public init(validating string: String) throws(ValidationError) {
        if string.hasPrefix(Self.anonymousPrefix) {
            let suffix = string.dropFirst(Self.anonymousPrefix.count)
            guard suffix.count == 32, suffix.allSatisfy(\.isLowercaseHexDigit) else {
                throw ValidationError(field: "app_user_id", reason: "anonymous IDs are $RCAnonymousID: followed by 32 lowercase hex digits")
            }
        } else {
            // Printable ASCII without spaces (almost every ID) has nothing to trim and no invisible or control character,
            // so the trimming and Unicode scans below (Foundation's, slow on Linux) are skipped.
            let plain = string.utf8.allSatisfy { (0x21...0x7E).contains($0) }
            let trimmed = plain ? string : string.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !Self.blocklist.contains(trimmed.lowercased()) else {
                throw ValidationError(field: "app_user_id", reason: "'\(string)' is not allowed as an app user ID")
            }
            // Counted in code points, as JSON Schema's `maxLength` (the OpenAPI document's) counts them.
            guard string.unicodeScalars.count <= Self.maxLength else {
                throw ValidationError(field: "app_user_id", reason: "must be at most \(Self.maxLength) characters")
            }
            guard !string.contains("/") else {
                throw ValidationError(field: "app_user_id", reason: "must not contain '/'")
            }
            if plain {
                self.rawValue = string
                return
            }
            guard !string.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw ValidationError(field: "app_user_id", reason: "must not contain control characters")
            }
            // Format characters are invisible: bidirectional overrides and zero-width characters make two IDs look alike.
            guard !string.unicodeScalars.contains(where: { $0.properties.generalCategory == .format || $0 == "\u{FFFD}" }) else {
                throw ValidationError(
                    field: "app_user_id", reason: "must not contain invisible characters (bidirectional overrides, zero-width characters)")
            }
        }
        self.rawValue = string
    }

    public var isAnonymous: Bool { rawValue.hasPrefix(Self.anonymousPrefix) }
    public var description: String { rawValue }

    /// A new anonymous ID with 128 random bits.
    public static func anonymous<R: RandomNumberGenerator>(using rng: inout R) -> AppUserID {
        var hex = ""
        for _ in 0..<2 { hex += String(format: "%016llx", rng.next() as UInt64) }
        return AppUserID(unchecked: anonymousPrefix + hex)
    }

    public static func anonymous() -> AppUserID {
        var rng = SystemRandomNumberGenerator()
        return anonymous(using: &rng)
    }

    init(unchecked: String) { self.rawValue = unchecked }
}

extension Character {
    var isLowercaseHexDigit: Bool { isASCII && (isNumber || ("a"..."f").contains(self)) }
}
