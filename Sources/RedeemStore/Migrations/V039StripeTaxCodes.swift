extension Migration {
    /// The Stripe product tax code of what an app sells, for Stripe Tax and Stripe Managed Payments.
    static let v039StripeTaxCodes = Migration(39, "stripe tax codes", ["ALTER TABLE apps ADD COLUMN stripe_tax_code TEXT"])
}
