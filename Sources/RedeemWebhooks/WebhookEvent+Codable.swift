extension WebhookEvent {
    enum CodingKeys: String, CodingKey {
        case id, type, aliases, environment, store, currency, price, redemption, offer
        case offerCode = "offer_code"
        case appID = "app_id"
        case eventTimestampMs = "event_timestamp_ms"
        case appUserID = "app_user_id"
        case originalAppUserID = "original_app_user_id"
        case subscriberAttributes = "subscriber_attributes"
        case productID = "product_id"
        case newProductID = "new_product_id"
        case entitlementIDs = "entitlement_ids"
        case entitlementID = "entitlement_id"
        case periodType = "period_type"
        case purchasedAtMs = "purchased_at_ms"
        case expirationAtMs = "expiration_at_ms"
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case priceInPurchasedCurrency = "price_in_purchased_currency"
        case cancelReason = "cancel_reason"
        case expirationReason = "expiration_reason"
        case isTrialConversion = "is_trial_conversion"
        case gracePeriodExpirationAtMs = "grace_period_expiration_at_ms"
        case transferredFrom = "transferred_from"
        case transferredTo = "transferred_to"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(String.self, forKey: .id), type: try c.decode(WebhookEventType.self, forKey: .type),
            appID: try c.decode(String.self, forKey: .appID), eventTimestampMs: try c.decode(Int64.self, forKey: .eventTimestampMs)
        )
        appUserID = try c.decodeIfPresent(String.self, forKey: .appUserID)
        originalAppUserID = try c.decodeIfPresent(String.self, forKey: .originalAppUserID)
        aliases = try c.decodeIfPresent([String].self, forKey: .aliases)
        environment = try c.decodeIfPresent(WebhookEnvironment.self, forKey: .environment)
        store = try c.decodeIfPresent(WebhookStore.self, forKey: .store)
        subscriberAttributes = try c.decodeIfPresent([String: WebhookSubscriberAttribute].self, forKey: .subscriberAttributes) ?? [:]
        productID = try c.decodeIfPresent(String.self, forKey: .productID)
        newProductID = try c.decodeIfPresent(String.self, forKey: .newProductID)
        entitlementIDs = try c.decodeIfPresent([String].self, forKey: .entitlementIDs)
        entitlementID = try c.decodeIfPresent(String.self, forKey: .entitlementID)
        periodType = try c.decodeIfPresent(WebhookPeriodType.self, forKey: .periodType)
        purchasedAtMs = try c.decodeIfPresent(Int64.self, forKey: .purchasedAtMs)
        expirationAtMs = try c.decodeIfPresent(Int64.self, forKey: .expirationAtMs)
        transactionID = try c.decodeIfPresent(String.self, forKey: .transactionID)
        originalTransactionID = try c.decodeIfPresent(String.self, forKey: .originalTransactionID)
        price = try c.decodeIfPresent(Double.self, forKey: .price)
        currency = try c.decodeIfPresent(String.self, forKey: .currency)
        priceInPurchasedCurrency = try c.decodeIfPresent(Double.self, forKey: .priceInPurchasedCurrency)
        cancelReason = try c.decodeIfPresent(WebhookReason.self, forKey: .cancelReason)
        expirationReason = try c.decodeIfPresent(WebhookReason.self, forKey: .expirationReason)
        isTrialConversion = try c.decodeIfPresent(Bool.self, forKey: .isTrialConversion)
        gracePeriodExpirationAtMs = try c.decodeIfPresent(Int64.self, forKey: .gracePeriodExpirationAtMs)
        transferredFrom = try c.decodeIfPresent([String].self, forKey: .transferredFrom)
        transferredTo = try c.decodeIfPresent([String].self, forKey: .transferredTo)
        redemption = try c.decodeIfPresent(WebhookRedemption.self, forKey: .redemption)
        offerCode = try c.decodeIfPresent(String.self, forKey: .offerCode)
        offer = try c.decodeIfPresent(WebhookOffer.self, forKey: .offer)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(type, forKey: .type)
        try c.encode(appID, forKey: .appID)
        try c.encode(eventTimestampMs, forKey: .eventTimestampMs)
        try c.encode(subscriberAttributes, forKey: .subscriberAttributes)
        try c.encodeIfPresent(appUserID, forKey: .appUserID)
        try c.encodeIfPresent(originalAppUserID, forKey: .originalAppUserID)
        try c.encodeIfPresent(aliases, forKey: .aliases)
        try c.encodeIfPresent(environment, forKey: .environment)
        try c.encodeIfPresent(store, forKey: .store)
        if productID != nil {
            // Purchase events: every field, null when unknown. Non-finite prices become null.
            try c.encode(productID, forKey: .productID)
            try c.encode(entitlementIDs ?? [], forKey: .entitlementIDs)
            try c.encode(entitlementID, forKey: .entitlementID)
            try c.encode(periodType, forKey: .periodType)
            try c.encode(purchasedAtMs, forKey: .purchasedAtMs)
            try c.encode(expirationAtMs, forKey: .expirationAtMs)
            try c.encode(transactionID, forKey: .transactionID)
            try c.encode(originalTransactionID, forKey: .originalTransactionID)
            try c.encode(price.flatMap { $0.isFinite ? $0 : nil }, forKey: .price)
            try c.encode(currency, forKey: .currency)
            try c.encode(priceInPurchasedCurrency.flatMap { $0.isFinite ? $0 : nil }, forKey: .priceInPurchasedCurrency)
        }
        try c.encodeIfPresent(newProductID, forKey: .newProductID)
        try c.encodeIfPresent(cancelReason, forKey: .cancelReason)
        try c.encodeIfPresent(expirationReason, forKey: .expirationReason)
        try c.encodeIfPresent(isTrialConversion, forKey: .isTrialConversion)
        try c.encodeIfPresent(gracePeriodExpirationAtMs, forKey: .gracePeriodExpirationAtMs)
        try c.encodeIfPresent(transferredFrom, forKey: .transferredFrom)
        try c.encodeIfPresent(transferredTo, forKey: .transferredTo)
        try c.encodeIfPresent(redemption, forKey: .redemption)
        if let offer {
            try c.encode(offerCode, forKey: .offerCode)
            try c.encode(offer, forKey: .offer)
        }
    }
}
