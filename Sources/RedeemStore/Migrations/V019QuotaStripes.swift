extension Migration {
    /// The quarterly offer-code quota counted in stripes (`StripedCount.stripes` rows per app and quarter, summed on
    /// read) instead of one row every redemption of the app updated. What was counted so far moves to stripe 0.
    static let v019QuotaStripes = Migration(
        19, "quota stripes",
        [
            """
            CREATE TABLE offer_quota_stripes (
                app_id TEXT NOT NULL REFERENCES apps(id),
                quarter TEXT NOT NULL,
                stripe INTEGER NOT NULL,
                used BIGINT NOT NULL,
                PRIMARY KEY (app_id, quarter, stripe)
            )
            """,
            "INSERT INTO offer_quota_stripes (app_id, quarter, stripe, used) SELECT app_id, quarter, 0, used FROM offer_quota_usage",
            "DROP TABLE offer_quota_usage",
        ])
}
