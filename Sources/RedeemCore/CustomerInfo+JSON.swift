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
        writer.key("first_seen")
        writer.string(firstSeen)
        writer.key("last_seen")
        writer.string(lastSeen)
        writer.key("management_url")
        writer.string(managementURL)
        writer.key("non_subscriptions")
        writer.object(nonSubscriptions) { writer, transactions in
            writer.beginArray()
            for transaction in transactions { transaction.writeJSON(to: &writer) }
            writer.endArray()
        }
        writer.key("original_app_user_id")
        writer.string(originalAppUserID)
        writer.key("original_application_version")
        writer.string(originalApplicationVersion)
        writer.key("original_purchase_date")
        writer.string(originalPurchaseDate)
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
        writer.key("auto_resume_date")
        writer.string(autoResumeDate)
        writer.key("billing_issues_detected_at")
        writer.string(billingIssuesDetectedAt)
        writer.key("display_name")
        writer.string(displayName)
        writer.key("expires_date")
        writer.string(expiresDate)
        writer.key("grace_period_expires_date")
        writer.string(gracePeriodExpiresDate)
        writer.key("is_sandbox")
        writer.bool(isSandbox)
        writer.key("management_url")
        writer.string(managementURL)
        if let offer {
            writer.key("offer_code_ref_name")
            writer.string(offer.referenceName)
            writer.key("offer_discount_type")
            writer.string(offer.discountType.rawValue)
            writer.key("offer_period")
            writer.string(offer.period)
            writer.key("offer_type")
            writer.string("offer_code")
        }
        writer.key("original_purchase_date")
        writer.string(originalPurchaseDate)
        writer.key("ownership_type")
        writer.string(ownershipType)
        writer.key("period_type")
        writer.string(periodType)
        writer.key("price")
        writePrice(price, to: &writer)
        writer.key("purchase_date")
        writer.string(purchaseDate)
        writer.key("refunded_at")
        writer.string(refundedAt)
        writer.key("store")
        writer.string(store)
        writer.key("store_transaction_id")
        writer.string(storeTransactionID)
        writer.key("unsubscribe_detected_at")
        writer.string(unsubscribeDetectedAt)
        writer.endObject()
    }
}

extension CustomerInfo.Transaction: JSONWritable {
    public func writeJSON(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("display_name")
        writer.string(displayName)
        writer.key("id")
        writer.string(id)
        writer.key("is_sandbox")
        writer.bool(isSandbox)
        writer.key("original_purchase_date")
        writer.string(originalPurchaseDate)
        writer.key("price")
        writePrice(price, to: &writer)
        writer.key("purchase_date")
        writer.string(purchaseDate)
        writer.key("refunded_at")
        writer.string(refundedAt)
        writer.key("store")
        writer.string(store)
        writer.key("store_transaction_id")
        writer.string(storeTransactionID)
        writer.endObject()
    }
}

extension CustomerInfo.EntitlementInfo: JSONWritable {
    public func writeJSON(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("expires_date")
        writer.string(expiresDate)
        writer.key("grace_period_expires_date")
        writer.string(gracePeriodExpiresDate)
        writer.key("product_identifier")
        writer.string(productIdentifier)
        writer.key("purchase_date")
        writer.string(purchaseDate)
        writer.endObject()
    }
}

extension CustomerInfo.Attribute: JSONWritable {
    public func writeJSON(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("updated_at_ms")
        writer.int(updatedAtMs)
        writer.key("value")
        writer.string(value)
        writer.endObject()
    }
}

extension CustomerInfo.PriceInfo: JSONWritable {
    public func writeJSON(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("amount")
        writer.double(amount)
        writer.key("currency")
        writer.string(currency)
        writer.endObject()
    }
}

/// A price, or `null`.
private func writePrice(_ price: CustomerInfo.PriceInfo?, to writer: inout JSONWriter) {
    if let price { price.writeJSON(to: &writer) } else { writer.null() }
}
