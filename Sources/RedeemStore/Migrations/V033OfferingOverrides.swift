extension Migration {
    /// RevenueCat's offering override (REST API v1): the offering a backend chose to be one customer's current one. One
    /// per customer, gone with the customer or the offering; a merge keeps the later of the two customers' choices.
    static let v033OfferingOverrides = Migration(
        33, "offering overrides",
        [
            """
            CREATE TABLE offering_overrides (
                customer_id TEXT PRIMARY KEY REFERENCES customers(id) ON DELETE CASCADE,
                app_id TEXT NOT NULL,
                offering_id TEXT NOT NULL,
                set_at BIGINT NOT NULL,
                FOREIGN KEY (app_id, offering_id) REFERENCES offerings (app_id, id) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX offering_overrides_offering ON offering_overrides (app_id, offering_id)",
        ])
}
