/// CustomerInfo written without `JSONEncoder`, byte for byte what its `Encodable` conformances write with sorted keys
/// (nulls written out). Keys go in sorted order; `JSONWriterTests` holds each writer to `JSONEncoder`.
extension CustomerInfo: JSONWritable {
    public func writeJSON(to writer: inout JSONWriter) {
        writer.beginObject()
        writeFields(to: &writer)
        writer.endObject()
    }

    /// The three top-level fields, for answers that add one more key beside them (`CustomerInfoWith`).
    public func writeFields(to writer: inout JSONWriter, extra: (key: String, write: (inout JSONWriter) -> Void)? = nil) {
        let fields: [(String, (inout JSONWriter) -> Void)] = [
            ("request_date", { $0.string(requestDate) }),
            ("request_date_ms", { $0.int(requestDateMs) }),
            ("subscriber", { subscriber.writeJSON(to: &$0) }),
        ]
        var written = false
        for (key, write) in fields {
            if let extra, !written, JSONWriter.precedes(extra.key, key) {
                writer.key(extra.key)
                extra.write(&writer)
                written = true
            }
            writer.key(key)
            write(&writer)
        }
        if let extra, !written {
            writer.key(extra.key)
            extra.write(&writer)
        }
    }
}

extension CustomerInfo.Subscriber: JSONWritable {
    public func writeJSON(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("entitlements")
        writer.object(entitlements) { $1.writeJSON(to: &$0) }
        writer.field("first_seen", firstSeen)
        writer.field("last_seen", lastSeen)
        writer.field("management_url", managementURL)
        writer.key("non_subscriptions")
        writer.object(nonSubscriptions) { writer, transactions in
            writer.beginArray()
            for transaction in transactions { transaction.writeJSON(to: &writer) }
            writer.endArray()
        }
        writer.field("original_app_user_id", originalAppUserID)
        writer.field("original_application_version", originalApplicationVersion)
        writer.field("original_purchase_date", originalPurchaseDate)
        writer.key("other_purchases")
        writer.object(otherPurchases) { $1.writeJSON(to: &$0) }
        writer.key("subscriber_attributes")
        writer.object(subscriberAttributes) { $1.writeJSON(to: &$0) }
        writer.key("subscriptions")
        writer.object(subscriptions) { $1.writeJSON(to: &$0) }
        writer.endObject()
    }
}

extension CustomerInfo.SubscriptionInfo: JSONWritable {
    public func writeJSON(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("auto_resume_date", autoResumeDate)
        writer.field("billing_issues_detected_at", billingIssuesDetectedAt)
        writer.field("display_name", displayName)
        writer.field("expires_date", expiresDate)
        writer.field("grace_period_expires_date", gracePeriodExpiresDate)
        writer.field("is_sandbox", isSandbox)
        writer.field("management_url", managementURL)
        if let offer {
            writer.field("offer_code_ref_name", offer.referenceName)
            writer.field("offer_discount_type", offer.discountType.rawValue)
            writer.field("offer_period", offer.period)
            writer.field("offer_type", "offer_code")
        }
        writer.field("original_purchase_date", originalPurchaseDate)
        writer.field("ownership_type", ownershipType)
        writer.field("period_type", periodType)
        writer.field("price", price)
        writer.field("purchase_date", purchaseDate)
        writer.field("refunded_at", refundedAt)
        writer.field("store", store)
        writer.field("store_transaction_id", storeTransactionID)
        writer.field("unsubscribe_detected_at", unsubscribeDetectedAt)
        writer.endObject()
    }
}

extension CustomerInfo.Transaction: JSONWritable {
    public func writeJSON(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("display_name", displayName)
        writer.field("id", id)
        writer.field("is_sandbox", isSandbox)
        writer.field("original_purchase_date", originalPurchaseDate)
        writer.field("price", price)
        writer.field("purchase_date", purchaseDate)
        writer.field("refunded_at", refundedAt)
        writer.field("store", store)
        writer.field("store_transaction_id", storeTransactionID)
        writer.endObject()
    }
}

extension CustomerInfo.EntitlementInfo: JSONWritable {
    public func writeJSON(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("expires_date", expiresDate)
        writer.field("grace_period_expires_date", gracePeriodExpiresDate)
        writer.field("product_identifier", productIdentifier)
        writer.field("purchase_date", purchaseDate)
        writer.endObject()
    }
}

extension CustomerInfo.Attribute: JSONWritable {
    public func writeJSON(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("updated_at_ms", updatedAtMs)
        writer.field("value", value)
        writer.endObject()
    }
}

extension CustomerInfo.PriceInfo: JSONWritable {
    public func writeJSON(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("amount")
        writer.double(amount)
        writer.field("currency", currency)
        writer.endObject()
    }
}
