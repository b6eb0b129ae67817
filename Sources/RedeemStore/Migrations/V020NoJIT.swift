extension Migration {
    /// JIT off for the database's new sessions. Redeem's statements are short lookups, but a plan's estimated cost can
    /// cross `jit_above_cost` (a subplan's cost times an overestimated row count) and then every execution compiles
    /// with LLVM: measured, the redemption's facts read went from about 1 ms to 300–600 ms of CPU and throughput from
    /// 1,500 to 50 redemptions/s. Set on the database, not per connection, so it passes through poolers; a user that
    /// does not own the database keeps the server's setting, with a notice. PostgreSQL only.
    static let v020NoJIT = Migration(
        20, "no jit", [],
        postgres: [
            """
            DO $$
            BEGIN
                EXECUTE format('ALTER DATABASE %I SET jit = off', current_database());
            EXCEPTION WHEN insufficient_privilege THEN
                RAISE NOTICE 'jit left as the server sets it: only the database owner can turn it off for the database';
            END $$
            """
        ])
}
