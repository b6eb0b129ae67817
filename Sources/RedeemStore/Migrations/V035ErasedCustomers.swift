extension Migration {
    /// When an erased customer's purchases were moved to the customer no ID reaches (`eraseCustomer`), on that customer:
    /// what tells the metrics that the erasure, not the buyer, ended those subscriptions.
    static let v035ErasedCustomers = Migration(
        35, "erased customers",
        ["ALTER TABLE customers ADD COLUMN erased_at BIGINT"])
}
