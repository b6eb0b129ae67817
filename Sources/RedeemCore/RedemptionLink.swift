import Foundation

/// The two forms of a redemption link for one token.
public struct RedemptionLink: Hashable, Sendable {
    public let token: String
    public let customSchemeURL: String
    public let httpsURL: String
    public let expiresAt: Date

    /// 256 bits from the system CSPRNG, base64url: 43 characters.
    public static func newToken() -> String { SecretToken.generate(byteCount: 32) }

    public init(token: String, scheme: String, publicURL: URL, expiresAt: Date) {
        self.token = token
        self.customSchemeURL = "\(scheme)://redeem_web_purchase?redemption_token=\(token)"
        let base = publicURL.absoluteString.hasSuffix("/") ? String(publicURL.absoluteString.dropLast()) : publicURL.absoluteString
        self.httpsURL = "\(base)/r/\(token)"
        self.expiresAt = expiresAt
    }

    /// Tokens are base64url; anything else cannot be one.
    public static func isWellFormed(_ token: String) -> Bool {
        (16...128).contains(token.utf8.count)
            && token.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte) || byte == 0x2d || byte == 0x5f
            }
    }
}
