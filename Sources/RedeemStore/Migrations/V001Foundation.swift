extension Migration {
    static let v001Foundation = Migration(
        1, "foundation",
        [
            """
            CREATE TABLE apps (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                icon_url TEXT,
                app_store_url TEXT,
                play_store_url TEXT,
                scheme TEXT NOT NULL UNIQUE,
                ios_team_id TEXT,
                ios_bundle_id TEXT,
                android_package_name TEXT,
                android_cert_fingerprints TEXT NOT NULL DEFAULT '',
                redemption_link_policy TEXT NOT NULL,
                restore_behavior TEXT NOT NULL,
                redemption_link_lifetime_seconds BIGINT NOT NULL,
                support_email TEXT,
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE api_keys (
                id TEXT PRIMARY KEY,
                app_id TEXT REFERENCES apps(id),
                kind TEXT NOT NULL,
                key_hash TEXT NOT NULL UNIQUE,
                display_prefix TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                revoked_at BIGINT
            )
            """,
            "CREATE INDEX api_keys_app ON api_keys (app_id)",
            """
            CREATE TABLE entitlements (
                app_id TEXT NOT NULL REFERENCES apps(id),
                id TEXT NOT NULL,
                display_name TEXT,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, id)
            )
            """,
            """
            CREATE TABLE products (
                app_id TEXT NOT NULL REFERENCES apps(id),
                id TEXT NOT NULL,
                type TEXT NOT NULL,
                period TEXT,
                display_name TEXT,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, id)
            )
            """,
            """
            CREATE TABLE product_entitlements (
                app_id TEXT NOT NULL,
                product_id TEXT NOT NULL,
                entitlement_id TEXT NOT NULL,
                PRIMARY KEY (app_id, product_id, entitlement_id),
                FOREIGN KEY (app_id, product_id) REFERENCES products (app_id, id),
                FOREIGN KEY (app_id, entitlement_id) REFERENCES entitlements (app_id, id)
            )
            """,
            """
            CREATE TABLE customers (
                id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps(id),
                original_app_user_id TEXT NOT NULL,
                first_seen BIGINT NOT NULL,
                last_seen BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE customer_aliases (
                app_id TEXT NOT NULL,
                app_user_id TEXT NOT NULL,
                customer_id TEXT NOT NULL REFERENCES customers(id),
                created_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, app_user_id)
            )
            """,
            "CREATE INDEX customer_aliases_customer ON customer_aliases (customer_id)",
            """
            CREATE TABLE purchases (
                id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps(id),
                customer_id TEXT NOT NULL REFERENCES customers(id),
                product_id TEXT NOT NULL,
                store TEXT NOT NULL,
                is_sandbox INTEGER NOT NULL,
                purchase_date BIGINT NOT NULL,
                original_purchase_date BIGINT NOT NULL,
                expires_date BIGINT,
                grace_period_expires_date BIGINT,
                period_type TEXT NOT NULL,
                store_transaction_id TEXT NOT NULL,
                price_amount_micros BIGINT,
                price_currency TEXT,
                email TEXT,
                unsubscribe_detected_at BIGINT,
                billing_issues_detected_at BIGINT,
                refunded_at BIGINT,
                created_at BIGINT NOT NULL,
                UNIQUE (app_id, store, store_transaction_id),
                FOREIGN KEY (app_id, product_id) REFERENCES products (app_id, id)
            )
            """,
            "CREATE INDEX purchases_customer ON purchases (customer_id)",
            """
            CREATE TABLE idempotency_keys (
                app_id TEXT NOT NULL,
                idempotency_key TEXT NOT NULL,
                request_hash TEXT NOT NULL,
                resource_id TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, idempotency_key)
            )
            """,
        ])
}
