extension Migration {
    /// Support views and two-factor sign-in: when a link's page was first opened, which purchase each webhook delivery
    /// is about (by store transaction), and operators' authenticator secrets.
    static let v013Support = Migration(
        13, "support",
        [
            "ALTER TABLE redemption_tokens ADD COLUMN opened_at BIGINT",
            "ALTER TABLE webhook_deliveries ADD COLUMN transaction_id TEXT",
            "CREATE INDEX webhook_deliveries_transaction ON webhook_deliveries (app_id, transaction_id)",
            "ALTER TABLE operators ADD COLUMN totp_secret TEXT",
            "ALTER TABLE operators ADD COLUMN totp_enabled_at BIGINT",
        ])
}
