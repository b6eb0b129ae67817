extension Migration {
    static let v004Checkout = Migration(
        4, "checkout",
        [
            "ALTER TABLE products ADD COLUMN price_amount_micros BIGINT",
            "ALTER TABLE products ADD COLUMN price_currency TEXT",
            "ALTER TABLE purchases ADD COLUMN custom_params TEXT",
            "ALTER TABLE apps ADD COLUMN after_purchase TEXT NOT NULL DEFAULT 'hosted'",
            "ALTER TABLE apps ADD COLUMN after_purchase_url TEXT",
        ])
}
