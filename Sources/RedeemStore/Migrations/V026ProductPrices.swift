extension Migration {
    /// Several prices per product, one per currency (the product's single price becomes its default row), each with
    /// the Stripe Price made for it; and a free trial length per product.
    static let v026ProductPrices = Migration(26, "product prices and trials", statements26)

    private static let statements26 = [
        """
        CREATE TABLE product_prices (
            app_id TEXT NOT NULL,
            product_id TEXT NOT NULL,
            currency TEXT NOT NULL,
            amount_micros BIGINT NOT NULL,
            is_default INTEGER NOT NULL DEFAULT 0,
            stripe_price_id TEXT,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            PRIMARY KEY (app_id, product_id, currency),
            FOREIGN KEY (app_id, product_id) REFERENCES products (app_id, id)
        )
        """,
        """
        INSERT INTO product_prices (app_id, product_id, currency, amount_micros, is_default, created_at, updated_at)
        SELECT app_id, id, price_currency, price_amount_micros, 1, created_at, created_at FROM products
        WHERE price_currency IS NOT NULL AND price_amount_micros IS NOT NULL
        """,
        "ALTER TABLE products ADD COLUMN trial_days INTEGER",
    ]
}
