extension Migration {
    static let v006StoreEvents = Migration(
        6, "store_events",
        [
            """
            CREATE TABLE store_events (
                source TEXT NOT NULL,
                event_id TEXT NOT NULL,
                event_type TEXT NOT NULL,
                received_at BIGINT NOT NULL,
                PRIMARY KEY (source, event_id)
            )
            """,
            "ALTER TABLE purchases ADD COLUMN payment_reference TEXT",
            "CREATE INDEX purchases_payment_reference ON purchases (payment_reference)",
            "CREATE INDEX purchases_store_transaction ON purchases (store, store_transaction_id)",
        ])
}
