import Foundation

/// Pure checks for identifiers and addresses that clients send.
public enum Formats {
    public static func isHTTPSURL(_ string: String) -> Bool {
        guard string.count <= 2048, let url = URL(string: string), url.scheme == "https", let host = url.host else { return false }
        return !host.isEmpty
    }

    /// A file Redeem serves itself (`/assets/demo-icon.svg`): pages load it from their own origin.
    public static func isAssetPath(_ string: String) -> Bool {
        guard string.hasPrefix("/assets/"), string.count <= 100 else { return false }
        let name = string.dropFirst("/assets/".count)
        return !name.isEmpty && !name.hasPrefix(".") && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
    }

    /// Where a buyer may be sent after checkout: https, or http://localhost (sandbox only, checked at use).
    public static func isRedirectURL(_ string: String) -> Bool {
        isHTTPSURL(string) || isLocalhostURL(string)
    }

    public static func isLocalhostURL(_ string: String) -> Bool {
        guard let url = URL(string: string), url.scheme == "http" else { return false }
        return ["localhost", "127.0.0.1"].contains(url.host ?? "")
    }

    /// A Stripe product tax code (`txcd_10000000`); which codes exist, and which Managed Payments takes, is Stripe's to say.
    public static func isStripeTaxCode(_ string: String) -> Bool {
        string.count == 13 && string.hasPrefix("txcd_") && string.dropFirst(5).allSatisfy { $0.isASCII && $0.isNumber }
    }

    public static func isTeamID(_ string: String) -> Bool {
        string.count == 10 && string.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) }
    }

    public static func isBundleID(_ string: String) -> Bool {
        let parts = string.split(separator: ".", omittingEmptySubsequences: false)
        return string.count <= 155 && parts.count >= 2
            && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") } }
    }

    public static func isPackageName(_ string: String) -> Bool {
        let parts = string.split(separator: ".", omittingEmptySubsequences: false)
        return string.count <= 255 && parts.count >= 2
            && parts.allSatisfy { part in
                guard let first = part.first, first.isASCII, first.isLetter else { return false }
                return part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            }
    }

    /// `AB:CD:…` with 32 bytes, uppercased; nil when malformed.
    public static func normalizedFingerprint(_ string: String) -> String? {
        let bytes = string.split(separator: ":", omittingEmptySubsequences: false)
        guard bytes.count == 32, bytes.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else { return nil }
        return bytes.joined(separator: ":").uppercased()
    }

    /// An address Redeem can send to: one `@`, a dotted domain, and only printable ASCII without whitespace or the
    /// characters that delimit addresses in a mail header (`RedeemMail.MailAddress` takes the same; its SMTP client
    /// speaks no SMTPUTF8, so `josé@…` could never be delivered and is refused where it is typed).
    public static func isEmail(_ string: String) -> Bool {
        let parts = string.split(separator: "@", omittingEmptySubsequences: false)
        guard string.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty else { return false }
        let domain = parts[1]
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        let forbidden = Set("()<>[]:;,\\\"".utf8)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty }
            && string.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !forbidden.contains($0) }
    }
}
