extension Migration {
    static let v003EmailOutbox = Migration(
        3, "email_outbox_and_rate_limits",
        [
            """
            CREATE TABLE email_outbox (
                id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps(id),
                purchase_id TEXT NOT NULL REFERENCES purchases(id),
                kind TEXT NOT NULL,
                recipient TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                next_attempt_at BIGINT NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                locked_until BIGINT,
                sent_at BIGINT,
                failed_at BIGINT,
                last_error TEXT
            )
            """,
            "CREATE INDEX email_outbox_due ON email_outbox (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL",
            "CREATE INDEX email_outbox_purchase ON email_outbox (purchase_id, created_at)",
            """
            CREATE TABLE email_throttle (
                purchase_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                last_queued_at BIGINT NOT NULL,
                PRIMARY KEY (purchase_id, kind)
            )
            """,
            """
            CREATE TABLE rate_limits (
                bucket TEXT PRIMARY KEY,
                window_start BIGINT NOT NULL,
                hits INTEGER NOT NULL
            )
            """,
        ])
}
