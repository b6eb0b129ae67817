extension Migration {
    /// A switch of plan that waits for the period's end (Core's `ScheduledPlan`), kept on its purchase until the renewal
    /// applies it or the buyer keeps their plan.
    static let v043ScheduledPlans = Migration(
        43, "scheduled plans",
        [
            "ALTER TABLE purchases ADD COLUMN scheduled_product_id TEXT",
            "ALTER TABLE purchases ADD COLUMN scheduled_price_amount_micros BIGINT",
            "ALTER TABLE purchases ADD COLUMN scheduled_price_currency TEXT",
            "ALTER TABLE purchases ADD COLUMN scheduled_plan_requested_at BIGINT",
            "ALTER TABLE purchases ADD COLUMN stripe_schedule_id TEXT",
        ])
}
