extension Migration {
    static let v002RedemptionTokens = Migration(
        2, "redemption_tokens",
        [
            """
            CREATE TABLE redemption_tokens (
                token_hash TEXT PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps(id),
                purchase_id TEXT NOT NULL REFERENCES purchases(id),
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                consumed_at BIGINT,
                consumed_by TEXT
            )
            """,
            "CREATE INDEX redemption_tokens_purchase ON redemption_tokens (purchase_id)",
            """
            CREATE TABLE redemption_attempts (
                id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL,
                purchase_id TEXT,
                app_user_id TEXT NOT NULL,
                outcome TEXT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX redemption_attempts_purchase ON redemption_attempts (purchase_id, created_at)",
        ])
}
