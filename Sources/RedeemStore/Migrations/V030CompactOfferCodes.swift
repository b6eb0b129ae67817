extension Migration {
    /// One-time codes in fewer bytes, so that a million of them write (and on SQLite checkpoint) a third as much: each
    /// code keeps the first 128 bits of its SHA-256 as 32 hex characters (`CodeDigest`, which argues why that is
    /// enough), and names its batch by a small integer (`offer_code_batches.ref`) instead of the batch's 34-character ID.
    /// Existing codes are cut the same way, so they still redeem. The table is copied in key order (SQLite's B-tree
    /// then only appends; PostgreSQL builds its key once, after the rows). On PostgreSQL the hash compares bytewise
    /// (`COLLATE "C"`: hex needs no locale, and `strcoll` cost the inserts a tenth of their time), and new batches
    /// draw their `ref` from a sequence; on SQLite the one writer takes the largest plus one.
    static let v030CompactOfferCodes = Migration(
        30, "compact offer codes",
        batchRefs + [
            """
            CREATE TABLE offer_codes_v30 (
                code_hash TEXT PRIMARY KEY,
                batch_ref INTEGER NOT NULL,
                redeemed_at BIGINT,
                redeemed_by TEXT
            ) WITHOUT ROWID
            """,
            copyCodes,
            "DROP TABLE offer_codes",
            "ALTER TABLE offer_codes_v30 RENAME TO offer_codes",
        ],
        postgres: batchRefs + [
            "ALTER TABLE offer_code_batches ALTER COLUMN ref SET NOT NULL",
            "CREATE SEQUENCE offer_code_batch_refs OWNED BY offer_code_batches.ref",
            "SELECT setval('offer_code_batch_refs', (SELECT COALESCE(MAX(ref), 0) + 1 FROM offer_code_batches), false)",
            """
            CREATE TABLE offer_codes_v30 (
                code_hash TEXT COLLATE "C" NOT NULL,
                batch_ref BIGINT NOT NULL,
                redeemed_at BIGINT,
                redeemed_by TEXT
            )
            """,
            copyCodes,
            "ALTER TABLE offer_codes_v30 ADD CONSTRAINT offer_codes_v30_pkey PRIMARY KEY (code_hash)",
            "DROP TABLE offer_codes",
            "ALTER TABLE offer_codes_v30 RENAME TO offer_codes",
            "ALTER INDEX offer_codes_v30_pkey RENAME TO offer_codes_pkey",
        ])

    /// Existing batches numbered 1, 2, … by creation.
    private static let batchRefs = [
        "ALTER TABLE offer_code_batches ADD COLUMN ref BIGINT",
        """
        UPDATE offer_code_batches SET ref = (
            SELECT COUNT(*) FROM offer_code_batches b
            WHERE b.created_at < offer_code_batches.created_at OR (b.created_at = offer_code_batches.created_at AND b.id <= offer_code_batches.id))
        """,
        "CREATE UNIQUE INDEX offer_code_batches_ref ON offer_code_batches (ref)",
    ]

    /// A code whose batch is gone could never redeem (the lookup joins the batch): it is not copied.
    private static let copyCodes = """
        INSERT INTO offer_codes_v30 (code_hash, batch_ref, redeemed_at, redeemed_by)
        SELECT substr(c.code_hash, 1, 32), b.ref, c.redeemed_at, c.redeemed_by
        FROM offer_codes c JOIN offer_code_batches b ON b.id = c.batch_id
        ORDER BY 1
        """
}
