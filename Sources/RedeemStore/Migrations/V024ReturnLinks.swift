extension Migration {
    /// A link issued for one occasion (Stripe's return from a checkout session) names it in `issued_for`, unique: a
    /// reload of that return finds the link already issued and mints no second one.
    static let v024ReturnLinks = Migration(24, "one link per checkout return", statements24, postgres: statements24)

    private static let statements24 = [
        "ALTER TABLE redemption_tokens ADD COLUMN issued_for TEXT",
        "CREATE UNIQUE INDEX redemption_tokens_issued_for ON redemption_tokens (issued_for) WHERE issued_for IS NOT NULL",
    ]
}
