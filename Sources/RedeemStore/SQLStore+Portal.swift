import Foundation
import RedeemCore

/// A signed-in buyer of one app, known by their purchases' e-mail address.
public struct PortalSessionRecord: Sendable, Equatable {
    public let appID: String
    public let email: String
    public let expiresAt: Date
}

extension SQLStore {
    /// Records the hash of a sign-in link minted for `email` (normalized) in `appID`.
    public func insertPortalSignInToken(tokenHash: String, appID: String, email: String, now: Date, expiresAt: Date) async throws {
        try await single { connection in
            try await connection.query(
                """
                INSERT INTO portal_sign_in_tokens (token_hash, app_id, email, created_at, expires_at)
                VALUES (\(tokenHash), \(appID), \(email), \(now), \(expiresAt))
                """)
        }
    }

    /// Uses a sign-in link once, and opens a session for its address in the same transaction: the address, or nil
    /// when the link is unknown, of another app, used or expired.
    public func signInToPortal(linkHash: String, appID: String, sessionHash: String, now: Date, sessionExpiresAt: Date) async throws -> String? {
        try await write { connection in
            guard
                let row = try await connection.first(
                    """
                    UPDATE portal_sign_in_tokens SET used_at = \(now)
                    WHERE token_hash = \(linkHash) AND app_id = \(appID) AND used_at IS NULL AND expires_at > \(now)
                    RETURNING email
                    """)
            else { return nil }
            let email = try row.string("email")
            try await connection.query(
                """
                INSERT INTO portal_sessions (token_hash, app_id, email, created_at, expires_at)
                VALUES (\(sessionHash), \(appID), \(email), \(now), \(sessionExpiresAt))
                """)
            return email
        }
    }

    /// Whether a sign-in link is still usable (for the page that asks to confirm; showing it uses nothing).
    public func portalSignInTokenIsLive(tokenHash: String, appID: String, now: Date) async throws -> Bool {
        try await read { connection in
            try await connection.first(
                """
                SELECT token_hash FROM portal_sign_in_tokens
                WHERE token_hash = \(tokenHash) AND app_id = \(appID) AND used_at IS NULL AND expires_at > \(now)
                """) != nil
        }
    }

    /// A live session, or nil.
    public func portalSession(tokenHash: String, now: Date) async throws -> PortalSessionRecord? {
        try await read { connection in
            guard
                let row = try await connection.first(
                    """
                    SELECT app_id, email, expires_at FROM portal_sessions
                    WHERE token_hash = \(tokenHash) AND ended_at IS NULL AND expires_at > \(now)
                    """)
            else { return nil }
            return PortalSessionRecord(appID: try row.string("app_id"), email: try row.string("email"), expiresAt: try row.date("expires_at"))
        }
    }

    public func endPortalSession(tokenHash: String, now: Date) async throws {
        try await single { connection in
            try await connection.query("UPDATE portal_sessions SET ended_at = \(now) WHERE token_hash = \(tokenHash) AND ended_at IS NULL")
        }
    }
}
