extension Migration {
    /// The console's team: operators' names, invitations (only the hash of each link's token), password-reset links
    /// (hashes, single use), and the outbox of the e-mails that carry them (instance mail, about no app or purchase;
    /// each link is minted when its e-mail is composed).
    static let v025Team = Migration(
        25, "team",
        [
            "ALTER TABLE operators ADD COLUMN name TEXT",
            """
            CREATE TABLE operator_invitations (
                id TEXT PRIMARY KEY,
                email TEXT NOT NULL,
                role TEXT NOT NULL,
                token_hash TEXT NOT NULL UNIQUE,
                invited_by TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                accepted_at BIGINT,
                revoked_at BIGINT,
                operator_id TEXT REFERENCES operators(id)
            )
            """,
            "CREATE INDEX operator_invitations_email ON operator_invitations (email)",
            """
            CREATE TABLE operator_password_resets (
                token_hash TEXT PRIMARY KEY,
                operator_id TEXT NOT NULL REFERENCES operators(id),
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                used_at BIGINT
            )
            """,
            "CREATE INDEX operator_password_resets_operator ON operator_password_resets (operator_id)",
            """
            CREATE TABLE team_emails (
                id TEXT PRIMARY KEY,
                kind TEXT NOT NULL,
                recipient TEXT NOT NULL,
                subject_id TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                next_attempt_at BIGINT NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                locked_until BIGINT,
                sent_at BIGINT,
                failed_at BIGINT,
                last_error TEXT
            )
            """,
            "CREATE INDEX team_emails_due ON team_emails (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL",
            "CREATE INDEX team_emails_subject ON team_emails (subject_id, kind, created_at)",
        ])
}
