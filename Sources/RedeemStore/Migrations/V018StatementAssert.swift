extension Migration {
    /// `redeem_assert(condition, message)`: lets one statement of data-modifying CTEs undo itself (SQLSTATE RD001) when
    /// what it found differs from what its caller decided on, as the redemption's one-statement path does.
    /// PostgreSQL only; SQLite runs such work in a transaction.
    static let v018StatementAssert = Migration(
        18, "statement assert", [],
        postgres: [
            """
            CREATE FUNCTION redeem_assert(condition BOOLEAN, message TEXT) RETURNS BOOLEAN LANGUAGE plpgsql VOLATILE AS $$
            BEGIN
                IF condition IS NOT TRUE THEN RAISE EXCEPTION '%', message USING ERRCODE = 'RD001'; END IF;
                RETURN TRUE;
            END $$
            """
        ])
}
