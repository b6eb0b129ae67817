extension Migration {
    /// Stripe Checkout options per app: tax (`none` or `stripe_tax`) and Stripe promotion codes.
    static let v016CheckoutOptions = Migration(
        16, "checkout options",
        [
            "ALTER TABLE apps ADD COLUMN checkout_tax TEXT NOT NULL DEFAULT 'none'",
            "ALTER TABLE apps ADD COLUMN allow_promotion_codes INTEGER NOT NULL DEFAULT 0",
        ])
}
