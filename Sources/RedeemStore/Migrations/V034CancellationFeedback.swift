extension Migration {
    /// Why a subscription was set to end, when the buyer said (Stripe's `cancellation_details.feedback` values): kept
    /// while it is set to end, for the metrics' "why subscribers cancel".
    static let v034CancellationFeedback = Migration(
        34, "cancellation feedback",
        ["ALTER TABLE purchases ADD COLUMN cancellation_feedback TEXT"])
}
