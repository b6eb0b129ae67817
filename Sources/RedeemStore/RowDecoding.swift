import Foundation
import RedeemCore

extension App {
    init(row: SQLRow) throws {
        let fingerprints = row.optionalString("android_cert_fingerprints") ?? ""
        self.init(
            id: try row.string("id"), name: try row.string("name"), iconURL: row.optionalString("icon_url"),
            appStoreURL: row.optionalString("app_store_url"), playStoreURL: row.optionalString("play_store_url"),
            scheme: try row.string("scheme"), iosTeamID: row.optionalString("ios_team_id"),
            iosBundleID: row.optionalString("ios_bundle_id"), androidPackageName: row.optionalString("android_package_name"),
            androidCertFingerprints: fingerprints.isEmpty ? [] : fingerprints.split(separator: ",").map(String.init),
            redemptionLinkPolicy: try row.enumeration("redemption_link_policy"),
            restoreBehavior: try row.enumeration("restore_behavior"),
            redemptionLinkLifetimeSeconds: Int(try row.int("redemption_link_lifetime_seconds")),
            supportEmail: row.optionalString("support_email"),
            afterPurchase: AfterPurchase(rawValue: row.optionalString("after_purchase") ?? "") ?? .hosted,
            afterPurchaseURL: row.optionalString("after_purchase_url"),
            offerCodeQuotaPerQuarter: Int(row.optionalInt("offer_code_quota_per_quarter") ?? Int64(OfferQuota.defaultPerQuarter)),
            checkoutTax: CheckoutTax(rawValue: row.optionalString("checkout_tax") ?? "") ?? .none,
            allowPromotionCodes: (row.optionalInt("allow_promotion_codes") ?? 0) != 0,
            createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at")
        )
        // Colours were validated on the way in; one that no longer reads is dropped rather than reaching a page.
        brandLogoURL = row.optionalString("brand_logo_url")
        brandAccent = row.optionalString("brand_accent").flatMap(HexColor.init)
        brandBackground = row.optionalString("brand_background").flatMap(HexColor.init)
        brandForeground = row.optionalString("brand_foreground").flatMap(HexColor.init)
        brandAccentDark = row.optionalString("brand_accent_dark").flatMap(HexColor.init)
        brandBackgroundDark = row.optionalString("brand_background_dark").flatMap(HexColor.init)
        brandForegroundDark = row.optionalString("brand_foreground_dark").flatMap(HexColor.init)
        linkPolicyChosenAt = row.optionalDate("link_policy_chosen_at")
        termsURL = row.optionalString("terms_url")
        privacyURL = row.optionalString("privacy_url")
        stripeTaxCode = row.optionalString("stripe_tax_code")
        requireTermsConsent = (row.optionalInt("require_terms_consent") ?? 0) != 0
        renewalReminders = (row.optionalInt("renewal_reminders") ?? 0) != 0
    }
}

extension APIKey {
    init(row: SQLRow) throws {
        self.init(
            id: try row.string("id"), appID: row.optionalString("app_id"), kind: try row.enumeration("kind"),
            displayPrefix: try row.string("display_prefix"), label: row.optionalString("label"), createdAt: try row.date("created_at"),
            revokedAt: row.optionalDate("revoked_at"), lastUsedAt: row.optionalDate("last_used_at")
        )
    }
}

extension Entitlement {
    init(row: SQLRow) throws {
        self.init(
            appID: try row.string("app_id"), id: try row.string("id"), displayName: row.optionalString("display_name"),
            createdAt: try row.date("created_at")
        )
    }
}

extension Product {
    /// The product columns; entitlements are joined in by the caller.
    init(row: SQLRow) throws {
        self.init(
            appID: try row.string("app_id"), id: try row.string("id"), type: try row.enumeration("type"),
            period: row.optionalString("period"), displayName: row.optionalString("display_name"), entitlements: [],
            price: row.price(micros: "price_amount_micros", currency: "price_currency"),
            subscriptionGroup: row.optionalString("subscription_group"), groupLevel: row.optionalInt("group_level").map(Int.init),
            storeIDs: StoreProductIDs(
                appStore: row.optionalString("app_store_product_id"), playStore: row.optionalString("play_product_id"),
                playBasePlan: row.optionalString("play_base_plan_id")),
            createdAt: try row.date("created_at")
        )
    }
}

extension Customer {
    /// The customer columns; aliases are read separately where needed.
    init(row: SQLRow) throws {
        self.init(
            id: try row.string("id"), appID: try row.string("app_id"),
            originalAppUserID: try row.string("original_app_user_id"), aliases: [],
            firstSeen: try row.date("first_seen"), lastSeen: try row.date("last_seen")
        )
    }
}

extension Purchase {
    init(row: SQLRow) throws {
        let price = row.price(micros: "price_amount_micros", currency: "price_currency")
        self.init(
            id: try row.string("id"), appID: try row.string("app_id"), customerID: try row.string("customer_id"),
            productID: try row.string("product_id"), store: Store(rawValue: try row.string("store")),
            isSandbox: try row.bool("is_sandbox"), purchaseDate: try row.date("purchase_date"),
            originalPurchaseDate: try row.date("original_purchase_date"), expiresDate: row.optionalDate("expires_date"),
            gracePeriodExpiresDate: row.optionalDate("grace_period_expires_date"),
            periodType: try row.enumeration("period_type"), storeTransactionID: try row.string("store_transaction_id"),
            price: price, email: row.optionalString("email"),
            unsubscribeDetectedAt: row.optionalDate("unsubscribe_detected_at"),
            billingIssuesDetectedAt: row.optionalDate("billing_issues_detected_at"),
            refundedAt: row.optionalDate("refunded_at"), createdAt: try row.date("created_at")
        )
        cancellationFeedback = row.optionalString("cancellation_feedback").flatMap(CancellationFeedback.init(rawValue:))
        language = row.optionalString("language")
        if let offerID = row.optionalString("offer_id"), let name = row.optionalString("offer_code_ref_name"),
            let discount = row.optionalString("offer_discount_type").flatMap(OfferPaymentMode.init(rawValue:))
        {
            offer = PurchaseOffer(offerID: offerID, referenceName: name, discountType: discount, period: row.optionalString("offer_period"))
        }
        if let product = row.optionalString("scheduled_product_id"), let asked = row.optionalDate("scheduled_plan_requested_at") {
            scheduledPlan = ScheduledPlan(
                productID: product, price: row.price(micros: "scheduled_price_amount_micros", currency: "scheduled_price_currency"),
                requestedAt: asked, stripeScheduleID: row.optionalString("stripe_schedule_id"))
        }
        if let id = row.optionalString("dispute_id"), let opened = row.optionalDate("dispute_opened_at") {
            dispute = PurchaseDispute(
                id: id, openedAt: opened, reason: row.optionalString("dispute_reason") ?? "general",
                status: row.optionalString("dispute_status") ?? "",
                amount: row.price(micros: "dispute_amount_micros", currency: "dispute_currency"),
                endedAccessAt: row.optionalDate("dispute_ended_access_at"))
        }
        if let accepted = row.optionalDate("terms_accepted_at"), let terms = row.optionalString("terms_url") {
            termsConsent = TermsConsent(acceptedAt: accepted, termsURL: terms)
        }
        if let json = row.optionalString("custom_params"), let data = json.data(using: .utf8) {
            customParams = (try? JSONDecoder().decode([String: String].self, from: data)) ?? [:]
        }
    }
}

extension SQLRow {
    func price(micros: String, currency: String) -> Price? {
        guard let amount = optionalInt(micros), let code = optionalString(currency) else { return nil }
        return Price(amountMicros: amount, currency: code)
    }

    func enumeration<E: RawRepresentable>(_ name: String) throws -> E where E.RawValue == String {
        guard let value = E(rawValue: try string(name)) else { throw StoreError.corrupt(column: name) }
        return value
    }
}

extension AccessFacts {
    init(row: SQLRow) {
        self.init(
            expiresDate: row.optionalDate("expires_date"), gracePeriodExpiresDate: row.optionalDate("grace_period_expires_date"),
            refundedAt: row.optionalDate("refunded_at"))
    }

    /// `[expires, grace, refunded]` triples in milliseconds, as PostgreSQL's `json_agg` gives them.
    static func list(json: String?) throws -> [AccessFacts] {
        guard let json else { return [] }
        let date = { (ms: Int64?) in ms.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) } }
        return try JSONDecoder().decode([[Int64?]].self, from: Data(json.utf8)).map {
            AccessFacts(expiresDate: date($0[0]), gracePeriodExpiresDate: date($0[1]), refundedAt: date($0[2]))
        }
    }
}
