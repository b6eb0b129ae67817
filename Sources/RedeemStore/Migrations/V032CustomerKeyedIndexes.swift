extension Migration {
    /// Lookups by customer that scanned their whole table: a merge moves the source's offer redemptions
    /// (`offer_redemptions` by `customer_id`, on the usual web-to-app redemption's path), and an erasure rewrites the
    /// codes a customer redeemed and deletes their redemption attempts. Unredeemed codes stay out of their index, so
    /// storing a batch of codes maintains none.
    static let v032CustomerKeyedIndexes = Migration(
        32, "customer-keyed indexes",
        [
            "CREATE INDEX offer_redemptions_customer ON offer_redemptions (customer_id)",
            "CREATE INDEX offer_codes_redeemed_by ON offer_codes (redeemed_by) WHERE redeemed_by IS NOT NULL",
            "CREATE INDEX redemption_attempts_app_user ON redemption_attempts (app_id, app_user_id)",
        ])
}
