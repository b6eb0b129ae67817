extension Migration {
    /// Versions that tell every instance when a customer's info changed, so PostgreSQL can cache Customer Info across
    /// instances: a customer's version moves with any change to the customer or its purchases, an app's catalog
    /// version with any change to its products or their entitlements. Triggers keep them, so no write path can forget.
    /// SQLite has the columns but no triggers: it has `data_version`, which covers every commit.
    static let v017CustomerInfoVersions = Migration(
        17, "customer info versions",
        [
            "ALTER TABLE customers ADD COLUMN info_version BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE apps ADD COLUMN catalog_version BIGINT NOT NULL DEFAULT 0",
        ],
        postgres: [
            "ALTER TABLE customers ADD COLUMN info_version BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE apps ADD COLUMN catalog_version BIGINT NOT NULL DEFAULT 0",
            """
            CREATE FUNCTION redeem_customer_updated() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.info_version = OLD.info_version THEN NEW.info_version := OLD.info_version + 1; END IF;
                RETURN NEW;
            END $$
            """,
            "CREATE TRIGGER customers_info_version BEFORE UPDATE ON customers FOR EACH ROW EXECUTE FUNCTION redeem_customer_updated()",
            """
            CREATE FUNCTION redeem_purchase_changed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    UPDATE customers SET info_version = info_version + 1 WHERE id = NEW.customer_id;
                ELSIF TG_OP = 'DELETE' THEN
                    UPDATE customers SET info_version = info_version + 1 WHERE id = OLD.customer_id;
                ELSE
                    UPDATE customers SET info_version = info_version + 1 WHERE id IN (OLD.customer_id, NEW.customer_id);
                END IF;
                RETURN NULL;
            END $$
            """,
            """
            CREATE TRIGGER purchases_info_version AFTER INSERT OR UPDATE OR DELETE ON purchases
            FOR EACH ROW EXECUTE FUNCTION redeem_purchase_changed()
            """,
            """
            CREATE FUNCTION redeem_catalog_changed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE apps SET catalog_version = catalog_version + 1 WHERE id = (CASE WHEN TG_OP = 'DELETE' THEN OLD.app_id ELSE NEW.app_id END);
                RETURN NULL;
            END $$
            """,
            """
            CREATE TRIGGER products_catalog_version AFTER INSERT OR UPDATE OR DELETE ON products
            FOR EACH ROW EXECUTE FUNCTION redeem_catalog_changed()
            """,
            """
            CREATE TRIGGER product_entitlements_catalog_version AFTER INSERT OR UPDATE OR DELETE ON product_entitlements
            FOR EACH ROW EXECUTE FUNCTION redeem_catalog_changed()
            """,
        ])
}
