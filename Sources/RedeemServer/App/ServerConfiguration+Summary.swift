import Foundation
import Logging
import RedeemStore

extension ServerConfiguration {
    /// What the server runs with, for its first log line: every part that changes what it does, and never a secret
    /// (no password of a database or mail URL, no key, only whether Stripe's is a test or a live one).
    public var summary: Logger.Metadata {
        var metadata: Logger.Metadata = [
            "public_url": "\(publicURL.absoluteString)",
            "database": "\(Self.describe(database: databaseURL))",
            "email": "\(mail.map { "\($0.smtp.host):\($0.smtp.port) (\($0.smtp.security.rawValue))" } ?? "off")",
            "stripe": "\(stripe.map { Self.mode(of: $0.secretKey) } ?? "off")",
            "stripe_webhooks": "\(stripeWebhookSecret == nil ? "off" : "on")",
            "trusted_proxies": "\(trustedProxies.isEmpty ? "none" : trustedProxies.sorted().joined(separator: ","))",
            "rate_limits": "\(rateLimits.redeemPerIP)/min per IP, \(rateLimits.redeemPerUser)/min per user",
        ]
        if databaseURL.hasPrefix("postgres") {
            metadata["database_pool_size"] = "\(databasePoolSize)"
            if let listen = databaseListenURL { metadata["database_listen"] = "\(Self.describe(database: listen))" }
        }
        if ownersNeedTwoFactor { metadata["owners_need_two_factor"] = "true" }
        return metadata
    }

    /// A SQLite file's path, or a PostgreSQL server and database without the user or password.
    static func describe(database url: String) -> String {
        switch try? DatabaseLocation(url) {
        case .sqlite(let path)?: return "sqlite \(URL(fileURLWithPath: path).standardizedFileURL.path)"
        case .postgres(let address)?:
            let port = address.port.map { ":\($0)" } ?? ""
            return "postgres \(address.host ?? "?")\(port)\(address.path)"
        case nil: return "unreadable URL"
        }
    }

    /// `test` or `live`, from the key's prefix (sk_test_…, rk_live_…).
    static func mode(of key: String) -> String {
        key.hasPrefix("sk_live_") || key.hasPrefix("rk_live_") ? "live" : key.contains("_test_") ? "test" : "on"
    }
}
