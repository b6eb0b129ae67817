extension Migration {
    /// What RevenueCat's SDKs read besides Customer Info: offerings (packages pointing at products, one offering current),
    /// each product's App Store and Google Play identifiers, and subscriber attributes per customer (`from_backend`: set
    /// with the secret key, so trusted to name the customer's address). On PostgreSQL,
    /// offerings move the app's catalog version and attributes the customer's info version, as migration 17's triggers do
    /// for products and purchases.
    static let v023RevenueCatSDKs = Migration(
        23, "offerings, store identifiers, subscriber attributes", statements23 + sqlite23, postgres: statements23 + postgres23)

    /// SQLite keeps the app's catalog version too, so offerings are cached per app and dropped only when its catalog
    /// changes (any commit moves `data_version`, and redemptions commit all the time).
    private static let sqlite23: [String] = ["products", "product_entitlements", "offerings", "offering_packages"].flatMap { table in
        [("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")].map { operation, row in
            """
            CREATE TRIGGER \(table)_catalog_version_\(operation.lowercased()) AFTER \(operation) ON \(table)
            BEGIN UPDATE apps SET catalog_version = catalog_version + 1 WHERE id = \(row).app_id; END
            """
        }
    }

    private static let statements23 = [
        "ALTER TABLE products ADD COLUMN app_store_product_id TEXT",
        "ALTER TABLE products ADD COLUMN play_product_id TEXT",
        "ALTER TABLE products ADD COLUMN play_base_plan_id TEXT",
        """
        CREATE TABLE offerings (
            app_id TEXT NOT NULL REFERENCES apps(id),
            id TEXT NOT NULL,
            description TEXT NOT NULL,
            metadata TEXT NOT NULL,
            is_current INTEGER NOT NULL DEFAULT 0,
            created_at BIGINT NOT NULL,
            PRIMARY KEY (app_id, id)
        )
        """,
        "CREATE UNIQUE INDEX offerings_current ON offerings (app_id) WHERE is_current = 1",
        """
        CREATE TABLE offering_packages (
            app_id TEXT NOT NULL,
            offering_id TEXT NOT NULL,
            id TEXT NOT NULL,
            product_id TEXT NOT NULL,
            position INTEGER NOT NULL,
            PRIMARY KEY (app_id, offering_id, id),
            FOREIGN KEY (app_id, offering_id) REFERENCES offerings (app_id, id) ON DELETE CASCADE,
            FOREIGN KEY (app_id, product_id) REFERENCES products (app_id, id)
        )
        """,
        """
        CREATE TABLE subscriber_attributes (
            customer_id TEXT NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            updated_at BIGINT NOT NULL,
            from_backend INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (customer_id, key)
        )
        """,
        "CREATE INDEX subscriber_attributes_value ON subscriber_attributes (key, LOWER(value))",
    ]

    private static let postgres23 = [
        """
        CREATE TRIGGER offerings_catalog_version AFTER INSERT OR UPDATE OR DELETE ON offerings
        FOR EACH ROW EXECUTE FUNCTION redeem_catalog_changed()
        """,
        """
        CREATE TRIGGER offering_packages_catalog_version AFTER INSERT OR UPDATE OR DELETE ON offering_packages
        FOR EACH ROW EXECUTE FUNCTION redeem_catalog_changed()
        """,
        """
        CREATE FUNCTION redeem_attribute_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE customers SET info_version = info_version + 1
            WHERE id = (CASE WHEN TG_OP = 'DELETE' THEN OLD.customer_id ELSE NEW.customer_id END);
            RETURN NULL;
        END $$
        """,
        """
        CREATE TRIGGER subscriber_attributes_info_version AFTER INSERT OR UPDATE OR DELETE ON subscriber_attributes
        FOR EACH ROW EXECUTE FUNCTION redeem_attribute_changed()
        """,
    ]
}
