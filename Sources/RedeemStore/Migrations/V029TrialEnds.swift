extension Migration {
    /// When a trial became paid: a trial converts in place (its row turns `normal`), so without this the metrics could
    /// tell neither the conversion nor when the paid periods began. And the metrics' reads by app: customers by first
    /// seen, purchases by environment and expiry.
    static let v029TrialEnds = Migration(
        29, "trial ends and metrics reads",
        [
            "ALTER TABLE purchases ADD COLUMN trial_ended_at BIGINT",
            "CREATE INDEX customers_app_first_seen ON customers (app_id, first_seen)",
            "CREATE INDEX purchases_app_sandbox_expiry ON purchases (app_id, is_sandbox, expires_date)",
        ])
}
