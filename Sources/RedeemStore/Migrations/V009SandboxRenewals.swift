extension Migration {
    static let v009SandboxRenewals = Migration(
        9, "sandbox_renewals",
        [
            "ALTER TABLE purchases ADD COLUMN sandbox_renewals INTEGER NOT NULL DEFAULT 0"
        ])
}
