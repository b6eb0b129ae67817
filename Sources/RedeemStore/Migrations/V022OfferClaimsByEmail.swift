extension Migration {
    /// On the web a buyer is known by their e-mail address: a web claim records it (normalized), and one address
    /// claims an offer once, as one customer does (the unique index decides two concurrent claims).
    static let v022OfferClaimsByEmail = Migration(
        22, "offer claims by e-mail",
        [
            "ALTER TABLE offer_redemptions ADD COLUMN email TEXT",
            "CREATE UNIQUE INDEX offer_redemptions_email ON offer_redemptions (offer_id, email) WHERE email IS NOT NULL",
        ])
}
