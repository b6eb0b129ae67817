extension Migration {
    /// The buyer's portal: one-time sign-in links (only a hash of each, minted when the e-mail is composed) and the
    /// sessions they open (only a hash of each session token). A buyer is the e-mail address their purchases carry.
    static let v015Portal = Migration(
        15, "portal",
        [
            """
            CREATE TABLE portal_sign_in_tokens (
                token_hash TEXT PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps(id),
                email TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                used_at BIGINT
            )
            """,
            """
            CREATE TABLE portal_sessions (
                token_hash TEXT PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps(id),
                email TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                ended_at BIGINT
            )
            """,
        ])
}
