extension Migration {
    /// Support views and two-factor sign-in: when a link's page was first opened, which purchase each webhook delivery
    /// is about (by store transaction), each app's unsent e-mails (the console's outbox), operators' authenticator secrets (kept readable: a code is checked against
    /// them) with the last time step used (so a code works once), and sessions still waiting for their code.
    static let v013Support = Migration(
        13, "support",
        [
            "ALTER TABLE redemption_tokens ADD COLUMN opened_at BIGINT",
            "ALTER TABLE webhook_deliveries ADD COLUMN transaction_id TEXT",
            "CREATE INDEX webhook_deliveries_transaction ON webhook_deliveries (app_id, transaction_id)",
            "CREATE INDEX email_outbox_app_unsent ON email_outbox (app_id, created_at) WHERE sent_at IS NULL",
            "ALTER TABLE operators ADD COLUMN totp_secret TEXT",
            "ALTER TABLE operators ADD COLUMN totp_enabled_at BIGINT",
            "ALTER TABLE operators ADD COLUMN totp_last_step BIGINT",
            "ALTER TABLE operator_sessions ADD COLUMN awaiting_code INTEGER NOT NULL DEFAULT 0",
        ])
}
