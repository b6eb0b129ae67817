extension Migration {
    /// An app's terms of use and privacy policy, linked from its buyer pages, its e-mails and Stripe Checkout.
    static let v038LegalLinks = Migration(
        38, "legal links",
        [
            "ALTER TABLE apps ADD COLUMN terms_url TEXT",
            "ALTER TABLE apps ADD COLUMN privacy_url TEXT",
        ])
}
