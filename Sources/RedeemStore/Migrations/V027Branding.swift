extension Migration {
    /// Checkout branding per app (an https logo, `#rrggbb` colours for light and dark) and when the redemption link
    /// policy was chosen (a first step).
    static let v027Branding = Migration(
        27, "branding",
        [
            "ALTER TABLE apps ADD COLUMN brand_logo_url TEXT",
            "ALTER TABLE apps ADD COLUMN brand_accent TEXT",
            "ALTER TABLE apps ADD COLUMN brand_background TEXT",
            "ALTER TABLE apps ADD COLUMN brand_foreground TEXT",
            "ALTER TABLE apps ADD COLUMN brand_accent_dark TEXT",
            "ALTER TABLE apps ADD COLUMN brand_background_dark TEXT",
            "ALTER TABLE apps ADD COLUMN brand_foreground_dark TEXT",
            "ALTER TABLE apps ADD COLUMN link_policy_chosen_at BIGINT",
        ])
}
