extension Migration {
    /// A payment the buyer's bank disputed (Core's `PurchaseDispute`), kept on its purchase with its last status.
    static let v044Disputes = Migration(
        44, "disputes",
        [
            "ALTER TABLE purchases ADD COLUMN dispute_id TEXT",
            "ALTER TABLE purchases ADD COLUMN dispute_opened_at BIGINT",
            "ALTER TABLE purchases ADD COLUMN dispute_reason TEXT",
            "ALTER TABLE purchases ADD COLUMN dispute_status TEXT",
            "ALTER TABLE purchases ADD COLUMN dispute_amount_micros BIGINT",
            "ALTER TABLE purchases ADD COLUMN dispute_currency TEXT",
            "ALTER TABLE purchases ADD COLUMN dispute_ended_access_at BIGINT",
        ])
}
