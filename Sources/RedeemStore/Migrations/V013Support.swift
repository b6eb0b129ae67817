extension Migration {
    /// Support views and two-factor sign-in: when a link's page was first opened, which purchase each webhook delivery
    /// is about (by store transaction), each app's unsent e-mails (the console's outbox), operators' authenticator secrets (kept readable: a code is checked against
    /// them) with the last time step used (so a code works once), sessions still waiting for their code, and what the
    /// funnel reads: checkout pages started (purchase links), and indexes by app and day.
    static let v013Support = Migration(
        13, "support",
        [
            "ALTER TABLE redemption_tokens ADD COLUMN opened_at BIGINT",
            "ALTER TABLE webhook_deliveries ADD COLUMN transaction_id TEXT",
            "CREATE INDEX webhook_deliveries_transaction ON webhook_deliveries (app_id, transaction_id)",
            "CREATE INDEX email_outbox_app_unsent ON email_outbox (app_id, created_at) WHERE sent_at IS NULL",
            // The funnel: each step's rows of one app over a range of days, read from an index, never a table scan.
            "CREATE INDEX purchases_app_created ON purchases (app_id, created_at)",
            "CREATE INDEX redemption_tokens_app_created ON redemption_tokens (app_id, created_at)",
            "CREATE INDEX email_outbox_app_created ON email_outbox (app_id, kind, created_at)",
            "CREATE INDEX web_checkouts_app_created ON web_checkouts (app_id, created_at)",
            """
            CREATE TABLE checkout_starts (
                id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps(id),
                product_id TEXT NOT NULL,
                sandbox INTEGER NOT NULL,
                started_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX checkout_starts_app ON checkout_starts (app_id, started_at)",
            "ALTER TABLE operators ADD COLUMN totp_secret TEXT",
            "ALTER TABLE operators ADD COLUMN totp_enabled_at BIGINT",
            "ALTER TABLE operators ADD COLUMN totp_last_step BIGINT",
            "ALTER TABLE operator_sessions ADD COLUMN awaiting_code INTEGER NOT NULL DEFAULT 0",
        ])
}
