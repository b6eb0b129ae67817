import Crypto
import Foundation
import RedeemCore

/// Signs bodies the way Stripe does, in a `Redeem-Signature` header:
///
///     Redeem-Signature: t=1767225600,v1=<64 lowercase hex digits>
///
/// `t` is the Unix time in seconds; `v1` is lowercase hex HMAC-SHA256, keyed with the whole secret's
/// UTF-8 bytes (`whsec_` included), over `"<t>."` followed by the raw body. Receivers recompute it,
/// compare in constant time, and reject timestamps more than a tolerance from their clock (replays).
/// Several `v1` entries may appear (e.g. while rotating secrets); one match suffices.
public enum WebhookSignature {
    public static let headerName = "Redeem-Signature"
    public static let defaultTolerance: TimeInterval = 300

    /// The header's value, `t=<unix>,v1=<hex>`.
    public static func header(body: [UInt8], secret: String, timestamp: Date) -> String {
        let t = Int64(timestamp.timeIntervalSince1970.rounded(.down))
        return "t=\(t),v1=\(signature(body: body, secret: secret, t: t))"
    }

    /// Throws unless `header` holds a valid `v1` for `body` whose `t` is within `tolerance` of `now`.
    public static func verify(
        body: [UInt8], header: String, secret: String, tolerance: TimeInterval = defaultTolerance, now: Date
    ) throws(WebhookSignatureError) {
        var t: Int64?
        var candidates: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            switch pair[0] {
            case "t": t = Int64(pair[1])
            case "v1": candidates.append(pair[1].lowercased())
            default: continue
            }
        }
        guard let t, !candidates.isEmpty else { throw .malformedHeader }
        guard abs(now.timeIntervalSince1970 - TimeInterval(t)) <= tolerance else { throw .timestampOutsideTolerance }
        let expected = signature(body: body, secret: secret, t: t)
        var matched = false
        for candidate in candidates where SecretToken.constantTimeEquals(candidate, expected) { matched = true }
        guard matched else { throw .signatureMismatch }
    }

    static func signature(body: [UInt8], secret: String, t: Int64) -> String {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: Array(secret.utf8)))
        hmac.update(data: Array("\(t).".utf8))
        hmac.update(data: body)
        return hmac.finalize().map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}

public enum WebhookSignatureError: Error, Equatable, Sendable {
    /// No `t`, or no `v1`.
    case malformedHeader
    /// Too old or too far in the future: possibly a replay.
    case timestampOutsideTolerance
    case signatureMismatch
}

/// Per-endpoint signing secrets.
public enum WebhookSecret {
    public static let prefix = "whsec_"

    /// `whsec_` plus 32 bytes from the system CSPRNG, base64url without padding.
    public static func generate() -> String {
        prefix + SecretToken.generate(byteCount: 32)
    }
}
