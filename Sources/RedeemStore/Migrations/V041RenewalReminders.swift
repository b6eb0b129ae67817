extension Migration {
    /// Whether an app e-mails buyers before a yearly renewal and before a long free trial ends.
    static let v041RenewalReminders = Migration(
        41, "renewal reminders", ["ALTER TABLE apps ADD COLUMN renewal_reminders INTEGER NOT NULL DEFAULT 0"])
}
