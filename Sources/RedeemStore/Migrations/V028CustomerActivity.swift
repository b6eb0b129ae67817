extension Migration {
    /// The console's Customers tab: an app's customers by latest activity, read from an index (newest first, paged by
    /// last seen and ID), and the audit entries about one customer or purchase by their object's ID.
    static let v028CustomerActivity = Migration(
        28, "customer_activity",
        [
            "CREATE INDEX customers_app_last_seen ON customers (app_id, last_seen, id)",
            "CREATE INDEX audit_log_object ON audit_log (object_id)",
        ])
}
