extension Migration {
    /// The language a buyer read the checkout in, kept with the purchase so that its e-mails speak it, and the language
    /// each queued e-mail is written in. Earlier rows stay NULL: English, as they were written.
    static let v036BuyerLanguages = Migration(
        36, "buyer languages",
        [
            "ALTER TABLE purchases ADD COLUMN language TEXT",
            "ALTER TABLE email_outbox ADD COLUMN language TEXT",
        ])
}
