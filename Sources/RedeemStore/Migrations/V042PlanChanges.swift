extension Migration {
    /// A subscription's switches of plan, made in place on its purchase (Core's `PlanChange`): what it was before each,
    /// so the customer's history and the metrics read each plan for the time it was in force.
    static let v042PlanChanges = Migration(
        42, "plan changes",
        [
            """
            CREATE TABLE plan_changes (
                id TEXT PRIMARY KEY,
                purchase_id TEXT NOT NULL REFERENCES purchases(id) ON DELETE CASCADE,
                changed_at BIGINT NOT NULL,
                from_product_id TEXT NOT NULL,
                from_price_amount_micros BIGINT,
                from_price_currency TEXT,
                to_product_id TEXT NOT NULL
            )
            """,
            "CREATE INDEX plan_changes_purchase ON plan_changes (purchase_id, changed_at)",
        ])
}
