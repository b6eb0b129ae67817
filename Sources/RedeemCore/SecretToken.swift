import Crypto
import Foundation

/// Random secrets (API keys, redemption tokens) and their stored form.
public enum SecretToken {
    /// `byteCount` bytes from the system CSPRNG, base64url without padding.
    public static func generate(byteCount: Int = 32) -> String {
        var rng = SystemRandomNumberGenerator()
        var bytes = [UInt8]()
        bytes.reserveCapacity(byteCount)
        for _ in 0..<byteCount { bytes.append(UInt8.random(in: .min ... .max, using: &rng)) }
        return base64URL(bytes)
    }

    /// The only form in which a secret is stored: lowercase hex SHA-256.
    public static func hash(_ secret: String) -> String {
        hex(SHA256.hash(data: Data(secret.utf8)))
    }

    /// Compares two secrets in time that depends only on their lengths.
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in x.indices { diff |= x[i] ^ y[i] }
        return diff == 0
    }

    /// A short, non-secret prefix of a key for logs and listings.
    public static func redacted(_ secret: String, keep: Int = 12) -> String {
        String(secret.prefix(keep)) + "…"
    }

    static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
