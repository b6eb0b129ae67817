extension Migration {
    /// When each API key was last used, so an operator can tell a forgotten key from one in use before revoking it.
    static let v014KeyUse = Migration(14, "key use", ["ALTER TABLE api_keys ADD COLUMN last_used_at BIGINT"])
}
