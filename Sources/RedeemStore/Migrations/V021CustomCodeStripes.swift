extension Migration {
    /// A custom code's uses counted in stripes (`StripedCount`, 16 rows per code, summed on read) instead of one column
    /// every redemption of the code updated: a code shared widely was one hot row. What was counted moves to the
    /// stripes as `StripedCount.layout` lays it out (each stripe up to its budget in order, any overflow on stripe 0),
    /// so "a stripe with room" still means "fewer uses than the cap".
    static let v021CustomCodeStripes = Migration(
        21, "custom code stripes",
        [
            """
            CREATE TABLE offer_custom_code_stripes (
                code_id TEXT NOT NULL REFERENCES offer_custom_codes(id),
                stripe INTEGER NOT NULL,
                used BIGINT NOT NULL,
                PRIMARY KEY (code_id, stripe)
            )
            """,
            """
            INSERT INTO offer_custom_code_stripes (code_id, stripe, used)
            SELECT id, stripe,
                CASE WHEN used_before <= 0 THEN 0 WHEN used_before >= budget THEN budget ELSE used_before END
                    + CASE WHEN stripe = 0 AND total > cap THEN total - cap ELSE 0 END
            FROM (
                SELECT c.id, k.stripe, c.redemption_count AS total, c.max_redemptions AS cap,
                    c.max_redemptions / 16 + CASE WHEN k.stripe < c.max_redemptions % 16 THEN 1 ELSE 0 END AS budget,
                    c.redemption_count - (k.stripe * (c.max_redemptions / 16)
                        + CASE WHEN k.stripe < c.max_redemptions % 16 THEN k.stripe ELSE c.max_redemptions % 16 END) AS used_before
                FROM offer_custom_codes c
                CROSS JOIN (
                    SELECT 0 AS stripe UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3
                    UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7
                    UNION ALL SELECT 8 UNION ALL SELECT 9 UNION ALL SELECT 10 UNION ALL SELECT 11
                    UNION ALL SELECT 12 UNION ALL SELECT 13 UNION ALL SELECT 14 UNION ALL SELECT 15) k
            ) laid_out
            """,
            "ALTER TABLE offer_custom_codes DROP COLUMN redemption_count",
        ])
}
