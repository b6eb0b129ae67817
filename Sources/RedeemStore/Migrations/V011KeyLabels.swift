extension Migration {
    /// Keys carry what they are for, so an operator can tell them apart and a re-run of the demo finds its own.
    static let v011KeyLabels = Migration(
        11, "key_labels",
        [
            "ALTER TABLE api_keys ADD COLUMN label TEXT"
        ])
}
