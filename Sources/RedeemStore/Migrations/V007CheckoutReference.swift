extension Migration {
    static let v007CheckoutReference = Migration(
        7, "checkout_reference",
        [
            "ALTER TABLE purchases ADD COLUMN checkout_reference TEXT",
            "CREATE INDEX purchases_checkout_reference ON purchases (checkout_reference)",
        ])
}
