extension Migration {
    /// The versions of migration 17, announced as they commit (`NOTIFY redeem_versions`), so that each instance can keep
    /// them in memory and serve a cached Customer Info without reading its tag (`SQLStore.watchCustomerVersions`).
    /// Payloads: `c <version> <customer>`, `a <version> <app>`, and `c gone <customer>` when a customer is deleted or
    /// one of its aliases moves or goes (a cached answer for that alias is then another customer's, or nobody's).
    /// PostgreSQL only: SQLite's `data_version` already covers every commit.
    static let v031CustomerVersionAnnouncements = Migration(
        31, "customer version announcements", [],
        postgres: [
            """
            CREATE FUNCTION redeem_customer_announce() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    PERFORM pg_notify('redeem_versions', 'c gone ' || OLD.id);
                ELSE
                    PERFORM pg_notify('redeem_versions', 'c ' || NEW.info_version || ' ' || NEW.id);
                END IF;
                RETURN NULL;
            END $$
            """,
            "CREATE TRIGGER customers_announce AFTER UPDATE OR DELETE ON customers FOR EACH ROW EXECUTE FUNCTION redeem_customer_announce()",
            """
            CREATE FUNCTION redeem_alias_announce() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('redeem_versions', 'c gone ' || OLD.customer_id);
                RETURN NULL;
            END $$
            """,
            """
            CREATE TRIGGER customer_aliases_announce AFTER UPDATE OR DELETE ON customer_aliases
            FOR EACH ROW EXECUTE FUNCTION redeem_alias_announce()
            """,
            """
            CREATE FUNCTION redeem_catalog_announce() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    PERFORM pg_notify('redeem_versions', 'a gone ' || OLD.id);
                ELSE
                    PERFORM pg_notify('redeem_versions', 'a ' || NEW.catalog_version || ' ' || NEW.id);
                END IF;
                RETURN NULL;
            END $$
            """,
            """
            CREATE TRIGGER apps_announce AFTER UPDATE ON apps FOR EACH ROW WHEN (OLD.catalog_version IS DISTINCT FROM NEW.catalog_version)
            EXECUTE FUNCTION redeem_catalog_announce()
            """,
            "CREATE TRIGGER apps_gone AFTER DELETE ON apps FOR EACH ROW EXECUTE FUNCTION redeem_catalog_announce()",
        ])
}
