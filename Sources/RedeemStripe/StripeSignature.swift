import Crypto
import Foundation

/// Stripe webhook signatures: HMAC-SHA256 of `"<t>." + raw body` keyed with the
/// endpoint secret (`whsec_…`, its UTF-8 bytes as-is), hex in `v1`.
public enum StripeSignature {
    /// Stripe's libraries default to five minutes.
    public static let defaultTolerance: TimeInterval = 300

    /// Checks `header` against the raw request body. Every `v1` is compared in constant
    /// time; `t` must be within `tolerance` of `now`, in the past or the future.
    /// Returns the signed timestamp.
    @discardableResult
    public static func verify(
        payload: some DataProtocol,
        header: String?,
        secret: String,
        tolerance: TimeInterval = defaultTolerance,
        now: Date
    ) throws(StripeSignatureError) -> Date {
        let parsed = try StripeSignatureHeader(parsing: header)
        let expected = mac(payload: payload, secret: secret, timestamp: parsed.timestamp)
        let matches = parsed.v1.contains { candidate in
            guard let bytes = Hex.decode(candidate) else { return false }
            return expected == bytes
        }
        guard matches else { throw .noMatchingSignature }
        let signedAt = Date(timeIntervalSince1970: TimeInterval(parsed.timestamp))
        guard abs(now.timeIntervalSince(signedAt)) <= tolerance else { throw .timestampOutsideTolerance }
        return signedAt
    }

    /// The header Stripe would send for `payload`: `t=<unix>,v1=<hex>`. For tests and docs.
    public static func header(payload: some DataProtocol, secret: String, timestamp: Date) -> String {
        let t = Int64(timestamp.timeIntervalSince1970.rounded(.down))
        return "t=\(t),v1=\(signature(payload: payload, secret: secret, timestamp: t))"
    }

    /// Lowercase hex `v1` signature for `payload` signed at unix time `timestamp`.
    public static func signature(payload: some DataProtocol, secret: String, timestamp: Int64) -> String {
        Hex.encode(mac(payload: payload, secret: secret, timestamp: timestamp))
    }

    private static func mac(
        payload: some DataProtocol, secret: String, timestamp: Int64
    ) -> HashedAuthenticationCode<SHA256> {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: Array(secret.utf8)))
        hmac.update(data: Array("\(timestamp).".utf8))
        hmac.update(data: payload)
        return hmac.finalize()
    }
}
