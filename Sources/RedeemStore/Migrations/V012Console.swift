extension Migration {
    /// The operator console: operators (bcrypt password hashes), their sessions (only a hash of each session token),
    /// the audit log, and the index that finds purchases by e-mail.
    static let v012Console = Migration(
        12, "console",
        [
            """
            CREATE TABLE operators (
                id TEXT PRIMARY KEY,
                email TEXT NOT NULL UNIQUE,
                role TEXT NOT NULL,
                password_hash TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                disabled_at BIGINT
            )
            """,
            """
            CREATE TABLE operator_sessions (
                token_hash TEXT PRIMARY KEY,
                operator_id TEXT NOT NULL REFERENCES operators(id),
                created_at BIGINT NOT NULL,
                last_seen_at BIGINT NOT NULL,
                ended_at BIGINT
            )
            """,
            "CREATE INDEX operator_sessions_operator ON operator_sessions (operator_id)",
            """
            CREATE TABLE audit_log (
                id TEXT PRIMARY KEY,
                at BIGINT NOT NULL,
                actor TEXT NOT NULL,
                action TEXT NOT NULL,
                object_type TEXT NOT NULL,
                object_id TEXT NOT NULL,
                app_id TEXT,
                detail TEXT
            )
            """,
            "CREATE INDEX audit_log_at ON audit_log (at)",
            "CREATE INDEX purchases_email ON purchases (app_id, LOWER(email))",
            "CREATE INDEX purchases_app_transaction ON purchases (app_id, store_transaction_id)",
        ])
}
