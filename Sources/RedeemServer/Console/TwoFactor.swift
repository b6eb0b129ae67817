import Foundation
import HummingbirdOTP
import RedeemCore

/// Authenticator-app codes (TOTP, RFC 6238: six digits, 30-second steps, SHA-1, as every authenticator app reads them),
/// computed by HummingbirdOTP.
enum TwoFactor {
    static let stepSeconds: Int64 = 30

    /// 20 bytes from the CSPRNG, as text: HummingbirdOTP keys its HMAC with the secret's UTF-8 bytes.
    static func newSecret() -> String { SecretToken.generate(byteCount: 20) }

    /// The `otpauth://` URL an authenticator app scans.
    static func authenticatorURL(secret: String, email: String) -> String {
        TOTP(secret: secret).createAuthenticatorURL(label: "Redeem:\(email)", issuer: "Redeem")
    }

    /// The key as a person types it into an authenticator app: the URL's base32 `secret`, in groups of four.
    static func typedKey(secret: String, email: String) -> String {
        let url = URLComponents(string: authenticatorURL(secret: secret, email: email))
        let key = url?.queryItems?.first { $0.name == "secret" }?.value ?? ""
        return stride(from: 0, to: key.count, by: 4).map { offset in
            let start = key.index(key.startIndex, offsetBy: offset)
            return String(key[start..<(key.index(start, offsetBy: 4, limitedBy: key.endIndex) ?? key.endIndex)])
        }.joined(separator: " ")
    }

    /// The time step whose code `code` is: the current one or one either side (clocks drift); nil when none matches.
    static func matchingStep(code: String, secret: String, now: Date) -> Int64? {
        let typed = code.filter { !$0.isWhitespace }
        guard typed.count == 6, typed.allSatisfy(\.isASCII), typed.allSatisfy(\.isNumber) else { return nil }
        let totp = TOTP(secret: secret)
        let current = Int64(now.timeIntervalSince1970) / stepSeconds
        var matched: Int64? = nil
        // Every candidate is compared, in constant time, so timing tells nothing about which one matched.
        for step in (current - 1)...(current + 1) {
            let expected = String(format: "%06d", totp.compute(date: Date(timeIntervalSince1970: TimeInterval(step * stepSeconds))))
            if SecretToken.constantTimeEquals(expected, typed) { matched = step }
        }
        return matched
    }
}
