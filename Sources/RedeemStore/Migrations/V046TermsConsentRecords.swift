extension Migration {
    /// The buyer's consent to the app's terms at checkout (Core's `TermsConsent`), kept with the purchase as proof.
    static let v046TermsConsentRecords = Migration(
        46, "terms consent records",
        [
            "ALTER TABLE purchases ADD COLUMN terms_accepted_at BIGINT",
            "ALTER TABLE purchases ADD COLUMN terms_url TEXT",
        ])
}
