extension Migration {
    /// Offers, one-time code batches, custom codes, redemptions (one per customer and offer) and the quarterly quota.
    static let v010OfferCodes = Migration(
        10, "offer_codes", common + [oneTimeCodes(withoutRowID: true)] + tail,
        postgres: common + [oneTimeCodes(withoutRowID: false)] + tail)

    private static let common = [
        "ALTER TABLE apps ADD COLUMN offer_code_quota_per_quarter BIGINT NOT NULL DEFAULT 1000000",
        "ALTER TABLE products ADD COLUMN subscription_group TEXT",
        "ALTER TABLE products ADD COLUMN group_level INTEGER",
        "ALTER TABLE purchases ADD COLUMN offer_id TEXT",
        "ALTER TABLE purchases ADD COLUMN offer_code_ref_name TEXT",
        "ALTER TABLE purchases ADD COLUMN offer_discount_type TEXT",
        "ALTER TABLE purchases ADD COLUMN offer_period TEXT",
        """
        CREATE TABLE offers (
            id TEXT PRIMARY KEY,
            app_id TEXT NOT NULL REFERENCES apps(id),
            product_id TEXT NOT NULL,
            reference_name TEXT NOT NULL,
            payment_mode TEXT NOT NULL,
            duration TEXT,
            periods INTEGER NOT NULL,
            price_amount_micros BIGINT,
            price_currency TEXT,
            eligibility TEXT NOT NULL,
            starts_at BIGINT,
            ends_at BIGINT,
            active INTEGER NOT NULL,
            created_at BIGINT NOT NULL,
            FOREIGN KEY (app_id, product_id) REFERENCES products (app_id, id),
            UNIQUE (app_id, reference_name)
        )
        """,
        "CREATE INDEX offers_product ON offers (app_id, product_id)",
        """
        CREATE TABLE offer_code_batches (
            id TEXT PRIMARY KEY,
            app_id TEXT NOT NULL REFERENCES apps(id),
            offer_id TEXT NOT NULL REFERENCES offers(id),
            code_count INTEGER NOT NULL,
            expires_at BIGINT NOT NULL,
            active INTEGER NOT NULL,
            created_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX offer_code_batches_offer ON offer_code_batches (offer_id)",
    ]

    /// Only the SHA-256 of each code is kept. On SQLite the hash is the table's key (no second index to fill).
    private static func oneTimeCodes(withoutRowID: Bool) -> String {
        """
        CREATE TABLE offer_codes (
            code_hash TEXT PRIMARY KEY,
            batch_id TEXT NOT NULL,
            redeemed_at BIGINT,
            redeemed_by TEXT
        )\(withoutRowID ? " WITHOUT ROWID" : "")
        """
    }

    private static let tail = [
        """
        CREATE TABLE offer_custom_codes (
            id TEXT PRIMARY KEY,
            app_id TEXT NOT NULL REFERENCES apps(id),
            offer_id TEXT NOT NULL REFERENCES offers(id),
            code TEXT NOT NULL,
            max_redemptions INTEGER NOT NULL,
            redemption_count INTEGER NOT NULL DEFAULT 0,
            expires_at BIGINT,
            active INTEGER NOT NULL,
            created_at BIGINT NOT NULL,
            UNIQUE (app_id, code)
        )
        """,
        "CREATE INDEX offer_custom_codes_offer ON offer_custom_codes (offer_id)",
        """
        CREATE TABLE offer_redemptions (
            id TEXT PRIMARY KEY,
            app_id TEXT NOT NULL REFERENCES apps(id),
            offer_id TEXT NOT NULL REFERENCES offers(id),
            customer_id TEXT NOT NULL,
            app_user_id TEXT NOT NULL,
            code_type TEXT NOT NULL,
            batch_id TEXT,
            custom_code_id TEXT,
            purchase_id TEXT,
            channel TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            UNIQUE (offer_id, customer_id)
        )
        """,
        "CREATE INDEX offer_redemptions_app ON offer_redemptions (app_id, created_at)",
        "CREATE INDEX offer_redemptions_batch ON offer_redemptions (batch_id)",
        """
        CREATE TABLE offer_quota_usage (
            app_id TEXT NOT NULL REFERENCES apps(id),
            quarter TEXT NOT NULL,
            used BIGINT NOT NULL,
            PRIMARY KEY (app_id, quarter)
        )
        """,
    ]
}
