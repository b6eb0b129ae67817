extension Migration {
    /// When an erased customer's purchases were moved to the customer no ID reaches (`eraseCustomer`), on that customer:
    /// what tells the metrics that the erasure, not the buyer, ended those subscriptions. Earlier erasures are the
    /// customers without any ID (every other customer has at least its first), marked as of their creation.
    static let v035ErasedCustomers = Migration(
        35, "erased customers",
        [
            "ALTER TABLE customers ADD COLUMN erased_at BIGINT",
            """
            UPDATE customers SET erased_at = first_seen
            WHERE NOT EXISTS (SELECT 1 FROM customer_aliases a WHERE a.customer_id = customers.id)
            """,
        ])
}
