import Foundation
import RedeemCore

extension SQLStore {
    public func createApp(_ app: App, keys: [GeneratedAPIKey], audit: AuditEntry? = nil) async throws {
        try await write(audit: audit) { connection in
            try await connection.query(
                """
                INSERT INTO apps (id, name, icon_url, app_store_url, play_store_url, scheme, ios_team_id, ios_bundle_id,
                    android_package_name, android_cert_fingerprints, redemption_link_policy, restore_behavior,
                    redemption_link_lifetime_seconds, support_email, after_purchase, after_purchase_url, offer_code_quota_per_quarter,
                    checkout_tax, allow_promotion_codes, created_at, updated_at)
                VALUES (\(app.id), \(app.name), \(app.iconURL), \(app.appStoreURL), \(app.playStoreURL), \(app.scheme),
                    \(app.iosTeamID), \(app.iosBundleID), \(app.androidPackageName),
                    \(app.androidCertFingerprints.joined(separator: ",")), \(app.redemptionLinkPolicy.rawValue),
                    \(app.restoreBehavior.rawValue), \(app.redemptionLinkLifetimeSeconds), \(app.supportEmail),
                    \(app.afterPurchase.rawValue), \(app.afterPurchaseURL), \(app.offerCodeQuotaPerQuarter),
                    \(app.checkoutTax.rawValue), \(app.allowPromotionCodes ? 1 : 0), \(app.createdAt), \(app.updatedAt))
                """)
            // A new app's later columns default to NULL: written only when set (tests build apps on older schemas too).
            if app.branding != CheckoutBranding() || app.linkPolicyChosenAt != nil || app.termsURL != nil || app.privacyURL != nil
                || app.stripeTaxCode != nil || app.requireTermsConsent || app.renewalReminders
            {
                try await Self.writeLaterSettings(app, on: connection)
            }
            for key in keys { try await Self.insertKey(key, on: connection) }
        }
    }

    public func app(id: String) async throws -> App {
        try await read { connection in
            guard let row = try await connection.first("SELECT * FROM apps WHERE id = \(id)") else {
                throw StoreError.notFound("app '\(id)'")
            }
            return try App(row: row)
        }
    }

    public func apps() async throws -> [App] {
        try await read { try await $0.query("SELECT * FROM apps ORDER BY created_at, id").map(App.init(row:)) }
    }

    public func updateApp(_ app: App, audit: AuditEntry? = nil) async throws {
        try await write(audit: audit) { connection in
            let previous = try await connection.first(
                "SELECT offer_code_quota_per_quarter AS q, stripe_tax_code FROM apps WHERE id = \(app.id)")
            let previousQuota = try previous?.int("q")
            let rows = try await connection.query(
                """
                UPDATE apps SET name = \(app.name), icon_url = \(app.iconURL), app_store_url = \(app.appStoreURL),
                    play_store_url = \(app.playStoreURL), ios_team_id = \(app.iosTeamID), ios_bundle_id = \(app.iosBundleID),
                    android_package_name = \(app.androidPackageName),
                    android_cert_fingerprints = \(app.androidCertFingerprints.joined(separator: ",")),
                    redemption_link_policy = \(app.redemptionLinkPolicy.rawValue),
                    restore_behavior = \(app.restoreBehavior.rawValue),
                    redemption_link_lifetime_seconds = \(app.redemptionLinkLifetimeSeconds),
                    support_email = \(app.supportEmail), after_purchase = \(app.afterPurchase.rawValue),
                    after_purchase_url = \(app.afterPurchaseURL),
                    offer_code_quota_per_quarter = \(app.offerCodeQuotaPerQuarter), checkout_tax = \(app.checkoutTax.rawValue),
                    allow_promotion_codes = \(app.allowPromotionCodes ? 1 : 0), updated_at = \(app.updatedAt)
                WHERE id = \(app.id) RETURNING id
                """)
            guard !rows.isEmpty else { throw StoreError.notFound("app '\(app.id)'") }
            try await Self.writeLaterSettings(app, on: connection)
            // A Stripe Price carries the tax code it was made with: a new code forgets them, and the next sync makes new ones.
            if let previous, previous.optionalString("stripe_tax_code") != app.stripeTaxCode {
                try await connection.query("UPDATE product_prices SET stripe_price_id = NULL WHERE app_id = \(app.id)")
            }
            if previousQuota != Int64(app.offerCodeQuotaPerQuarter) {
                try await Self.layOutQuotaStripes(appID: app.id, quota: app.offerCodeQuotaPerQuarter, on: connection)
            }
        }
    }

    /// The columns added since the app's own statements were written: branding and when the link policy was chosen
    /// (V027), the legal links (V038), the Stripe tax code (V039), terms consent (V040), renewal reminders (V041).
    static func writeLaterSettings(_ app: App, on connection: any SQLConnection) async throws {
        try await connection.query(
            """
            UPDATE apps SET brand_logo_url = \(app.brandLogoURL), brand_accent = \(app.brandAccent?.hex),
                brand_background = \(app.brandBackground?.hex), brand_foreground = \(app.brandForeground?.hex),
                brand_accent_dark = \(app.brandAccentDark?.hex), brand_background_dark = \(app.brandBackgroundDark?.hex),
                brand_foreground_dark = \(app.brandForegroundDark?.hex), link_policy_chosen_at = \(app.linkPolicyChosenAt),
                terms_url = \(app.termsURL), privacy_url = \(app.privacyURL), stripe_tax_code = \(app.stripeTaxCode),
                require_terms_consent = \(app.requireTermsConsent ? 1 : 0), renewal_reminders = \(app.renewalReminders ? 1 : 0)
            WHERE id = \(app.id)
            """)
    }

    /// Rewrites each quarter's quota stripes for `quota` (`StripedCount.layout`): a lowered quota must not leave room on
    /// one stripe while another holds more than its new budget. Locks the stripes, so redemptions wait for it.
    static func layOutQuotaStripes(appID: String, quota: Int, on connection: any SQLConnection) async throws {
        let lock = connection.engine == .postgres ? "FOR UPDATE" : ""
        let rows = try await connection.query(
            "SELECT quarter, used FROM offer_quota_stripes WHERE app_id = \(appID) \(unsafeRaw: lock)")
        var totals: [String: Int] = [:]
        for row in rows { totals[try row.string("quarter"), default: 0] += Int(try row.int("used")) }
        for (quarter, total) in totals {
            try await connection.query(
                stripeRows(
                    appID: appID, quarter: quarter, used: StripedCount.layout(total: total, limit: quota),
                    onConflict: "DO UPDATE SET used = excluded.used"))
        }
    }

    public func createKey(_ key: GeneratedAPIKey, audit: AuditEntry? = nil) async throws {
        try await write(audit: audit) { connection in
            if let appID = key.record.appID {
                guard try await connection.first("SELECT id FROM apps WHERE id = \(appID)") != nil else {
                    throw StoreError.notFound("app '\(appID)'")
                }
            }
            try await Self.insertKey(key, on: connection)
        }
    }

    public func keys(appID: String?) async throws -> [APIKey] {
        try await read { connection in
            let rows =
                if let appID {
                    try await connection.query("SELECT * FROM api_keys WHERE app_id = \(appID) ORDER BY created_at, id")
                } else {
                    try await connection.query("SELECT * FROM api_keys ORDER BY created_at, id")
                }
            return try rows.map(APIKey.init(row:))
        }
    }

    /// Records when keys were last used (a batch gathered in memory); an older time never replaces a newer one.
    public func recordKeyUses(_ uses: [String: Date]) async throws {
        guard !uses.isEmpty else { return }
        try await write { connection in
            for (id, at) in uses.sorted(by: { $0.key < $1.key }) {
                try await connection.query(
                    "UPDATE api_keys SET last_used_at = \(at) WHERE id = \(id) AND (last_used_at IS NULL OR last_used_at < \(at))")
            }
        }
    }

    public func revokeKey(id: String, appID: String?, at date: Date, audit: AuditEntry? = nil) async throws {
        try await write(audit: audit) { connection in
            let rows =
                if let appID {
                    try await connection.query(
                        """
                        UPDATE api_keys SET revoked_at = COALESCE(revoked_at, \(date))
                        WHERE id = \(id) AND app_id = \(appID) RETURNING id
                        """)
                } else {
                    try await connection.query("UPDATE api_keys SET revoked_at = COALESCE(revoked_at, \(date)) WHERE id = \(id) RETURNING id")
                }
            guard !rows.isEmpty else { throw StoreError.notFound("key '\(id)'") }
        }
    }

    public func activeKey(hash: String) async throws -> APIKey? {
        try await read { connection in
            try await connection.first("SELECT * FROM api_keys WHERE key_hash = \(hash) AND revoked_at IS NULL")
                .map(APIKey.init(row:))
        }
    }

    static func insertKey(_ key: GeneratedAPIKey, on connection: any SQLConnection) async throws {
        let record = key.record
        try await connection.query(
            """
            INSERT INTO api_keys (id, app_id, kind, key_hash, display_prefix, label, created_at)
            VALUES (
                \(record.id), \(record.appID), \(record.kind.rawValue), \(key.hash), \(record.displayPrefix), \(record.label),
                \(record.createdAt)
            )
            """)
    }
}
