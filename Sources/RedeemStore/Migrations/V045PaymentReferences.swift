extension Migration {
    /// Every payment a purchase was paid with (a Stripe payment intent: the first, then each renewal's), not only the
    /// latest one `purchases.payment_reference` keeps: a dispute of an earlier period's payment still finds its purchase.
    static let v045PaymentReferences = Migration(
        45, "payment references",
        [
            "CREATE TABLE purchase_payments (reference TEXT PRIMARY KEY, purchase_id TEXT NOT NULL REFERENCES purchases (id), recorded_at BIGINT NOT NULL)",
            "CREATE INDEX purchase_payments_purchase ON purchase_payments (purchase_id)",
            """
            INSERT INTO purchase_payments (reference, purchase_id, recorded_at)
            SELECT payment_reference, id, created_at FROM purchases WHERE payment_reference IS NOT NULL
            """,
        ])
}
