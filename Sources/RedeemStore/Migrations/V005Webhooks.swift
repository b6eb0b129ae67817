extension Migration {
    static let v005Webhooks = Migration(
        5, "webhooks",
        [
            """
            CREATE TABLE webhook_endpoints (
                id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps(id),
                url TEXT NOT NULL,
                authorization_header TEXT,
                signing_secret TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                disabled_at BIGINT
            )
            """,
            "CREATE INDEX webhook_endpoints_app ON webhook_endpoints (app_id)",
            """
            CREATE TABLE webhook_deliveries (
                id TEXT PRIMARY KEY,
                endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id),
                app_id TEXT NOT NULL,
                event_id TEXT NOT NULL,
                event_type TEXT NOT NULL,
                body TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                next_attempt_at BIGINT NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                locked_until BIGINT,
                delivered_at BIGINT,
                failed_at BIGINT,
                UNIQUE (endpoint_id, event_id)
            )
            """,
            "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE delivered_at IS NULL AND failed_at IS NULL",
            "CREATE INDEX webhook_deliveries_app ON webhook_deliveries (app_id, created_at)",
            """
            CREATE TABLE webhook_attempts (
                id TEXT PRIMARY KEY,
                delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id),
                attempted_at BIGINT NOT NULL,
                status_code INTEGER,
                error TEXT,
                duration_ms BIGINT NOT NULL
            )
            """,
            "CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, attempted_at)",
        ])
}
