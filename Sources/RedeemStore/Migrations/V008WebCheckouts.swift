extension Migration {
    static let v008WebCheckouts = Migration(
        8, "web_checkouts",
        [
            """
            CREATE TABLE web_checkouts (
                id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps(id),
                product_id TEXT NOT NULL,
                app_user_id TEXT,
                email TEXT,
                is_sandbox INTEGER NOT NULL,
                status TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """
        ])
}
