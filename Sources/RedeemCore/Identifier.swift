import Foundation

/// Prefixed identifiers for stored rows: 12 hex digits of the creation time in milliseconds, then 16 random ones.
/// Time first, so rows created together sit together in every index keyed by ID (B-tree inserts append at the right
/// edge and share pages, instead of dirtying one random page each); 64 random bits keep IDs from colliding.
public enum Identifier {
    public static func make(prefix: String, now: Date = Date()) -> String {
        var rng = SystemRandomNumberGenerator()
        let millis = UInt64(max(0, now.timeIntervalSince1970 * 1000)) & 0xffff_ffff_ffff
        return prefix + "_" + hex(millis, digits: 12) + hex(rng.next(), digits: 16)
    }

    /// The ID of what one request makes, as `make`'s (`prefix`, then 28 hex digits), from the request's own ID
    /// (`source`, a form's or an `Idempotency-Key`): the same for every submit of that request and for no other, and it
    /// does not show `source`. `scope` names the kind of write and, where IDs are unique across apps, the app.
    public static func derived(prefix: String, scope: String, from source: String) -> String {
        prefix + "_" + SecretToken.hash("\(scope):" + source).prefix(28)
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: digits - text.count) + text
    }
}
