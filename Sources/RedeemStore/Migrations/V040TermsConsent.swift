extension Migration {
    /// Whether an app's buyers tick a box agreeing to its terms before they pay or claim.
    static let v040TermsConsent = Migration(
        40, "terms consent", ["ALTER TABLE apps ADD COLUMN require_terms_consent INTEGER NOT NULL DEFAULT 0"])
}
