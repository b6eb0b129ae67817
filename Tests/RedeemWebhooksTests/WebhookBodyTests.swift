import Foundation
import RedeemCore
import RedeemWebhooks
import Testing

@Suite struct WebhookBodyTests {
    @Test func initialPurchaseOfASubscription() throws {
        let event = WebhookEvent.purchase(
            Fixtures.subscription, customer: Fixtures.customer, product: Fixtures.monthly, eventID: "evt_1", at: Fixtures.now
        )
        let expected = """
            {"api_version": "1.0", "event": {
              "id": "evt_1", "type": "INITIAL_PURCHASE", "app_id": "app_1", "event_timestamp_ms": 1767225700000,
              "app_user_id": "user_42", "original_app_user_id": "$RCAnonymousID:0123456789abcdef0123456789abcdef",
              "aliases": ["$RCAnonymousID:0123456789abcdef0123456789abcdef", "user_42"], "subscriber_attributes": {},
              "environment": "PRODUCTION", "store": "RC_BILLING",
              "product_id": "pro_monthly", "entitlement_ids": ["pro"], "entitlement_id": "pro", "period_type": "NORMAL",
              "purchased_at_ms": 1767225600123, "expiration_at_ms": 1769904000000,
              "transaction_id": "pi_123", "original_transaction_id": "pi_123",
              "price": 9.99, "currency": "USD", "price_in_purchased_currency": 9.99
            }}
            """
        #expect(try JSON(WebhookPayload.body(event)) == JSON(expected))
    }

    @Test func nonRenewingPurchaseOfALifetimeProduct() throws {
        let event = WebhookEvent.purchase(
            Fixtures.oneTime, customer: Fixtures.customer, product: Fixtures.lifetime, eventID: "evt_2", at: Fixtures.now
        )
        let expected = """
            {"api_version": "1.0", "event": {
              "id": "evt_2", "type": "NON_RENEWING_PURCHASE", "app_id": "app_1", "event_timestamp_ms": 1767225700000,
              "app_user_id": "user_42", "original_app_user_id": "$RCAnonymousID:0123456789abcdef0123456789abcdef",
              "aliases": ["$RCAnonymousID:0123456789abcdef0123456789abcdef", "user_42"], "subscriber_attributes": {},
              "environment": "SANDBOX", "store": "STRIPE",
              "product_id": "lifetime", "entitlement_ids": ["pro", "supporter"], "entitlement_id": null, "period_type": "NORMAL",
              "purchased_at_ms": 1767225600123, "expiration_at_ms": null,
              "transaction_id": "pi_456", "original_transaction_id": "pi_456",
              "price": null, "currency": "EUR", "price_in_purchased_currency": 49
            }}
            """
        #expect(try JSON(WebhookPayload.body(event)) == JSON(expected))
    }

    @Test func bodyIsDeterministicAndRoundTrips() throws {
        let event = WebhookEvent.renewal(
            Fixtures.subscription, customer: Fixtures.customer, product: Fixtures.monthly, isTrialConversion: true,
            eventID: "evt_3", at: Fixtures.now
        )
        let body = WebhookPayload.body(event)
        #expect(body == WebhookPayload.body(event))
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.hasPrefix(#"{"api_version":"1.0","event":{"aliases":["#))
        #expect(text.contains(#""is_trial_conversion":true"#))
        #expect(try WebhookPayload.event(from: body) == event)
    }

    /// A purchase link's attribution (`utm_*`) and custom metadata travel with the purchase into its events.
    @Test func attributionTravelsAsSubscriberAttributes() throws {
        var purchase = Fixtures.subscription
        purchase.customParams = ["utm_source": "newsletter", "campaign": "spring"]
        let event = WebhookEvent.purchase(purchase, customer: Fixtures.customer, product: Fixtures.monthly, eventID: "evt_9", at: Fixtures.now)
        let text = String(decoding: WebhookPayload.body(event), as: UTF8.self)
        let stamp = WebhookEvent.milliseconds(purchase.purchaseDate)
        #expect(text.contains(#""utm_source":{"updated_at_ms":\#(stamp),"value":"newsletter"}"#), "\(text)")
        #expect(text.contains(#""campaign":{"updated_at_ms":\#(stamp),"value":"spring"}"#))
        #expect(try WebhookPayload.event(from: WebhookPayload.body(event)) == event)
    }

    @Test func transferCarriesBothSidesAndNoAppUserID() throws {
        let destination = Customer(
            id: "cus_2", appID: "app_1", originalAppUserID: "user_7", aliases: [], firstSeen: Fixtures.start, lastSeen: Fixtures.start
        )
        let event = WebhookEvent.transfer(
            Fixtures.subscription, from: Fixtures.customer, to: destination, eventID: "evt_4", at: Fixtures.now
        )
        let expected = """
            {"api_version": "1.0", "event": {
              "id": "evt_4", "type": "TRANSFER", "app_id": "app_1", "event_timestamp_ms": 1767225700000,
              "subscriber_attributes": {}, "environment": "PRODUCTION", "store": "RC_BILLING",
              "transferred_from": ["$RCAnonymousID:0123456789abcdef0123456789abcdef", "user_42"], "transferred_to": ["user_7"]
            }}
            """
        #expect(try JSON(WebhookPayload.body(event)) == JSON(expected))
    }

    @Test func redemptionAddsItsObjectAndNamesTheRedeemer() throws {
        let event = WebhookEvent.redemption(
            Fixtures.oneTime, customer: Fixtures.customer, product: Fixtures.lifetime, redeemedBy: Fixtures.anonymous,
            association: WebhookRedemption.Association(.alias), eventID: "evt_5", at: Fixtures.now
        )
        let json = try JSON(WebhookPayload.body(event))["event"]
        #expect(json?["type"] == .string("REDEMPTION"))
        #expect(json?["app_user_id"] == .string(Fixtures.anonymous))
        #expect(json?["product_id"] == .string("lifetime"))
        #expect(try json?["redemption"] == JSON(#"{"purchase_id": "pur_2", "redeemed_by": "\#(Fixtures.anonymous)", "association": "alias"}"#))

        var owned = event
        owned.redemption?.association = nil
        #expect(try JSON(WebhookPayload.body(owned))["event"]?["redemption"]?["association"] == .null)
        #expect(WebhookRedemption.Association(.transfer) == .transfer)
        #expect(WebhookRedemption.Association(.refuse) == nil)
    }

    @Test func reasonsAndGracePeriodGoWhereRevenueCatPutsThem() throws {
        var purchase = Fixtures.subscription
        purchase.gracePeriodExpiresDate = Date(timeIntervalSince1970: 1_770_000_000)
        let (c, p) = (Fixtures.customer, Fixtures.monthly)
        let cancel = WebhookEvent.cancellation(purchase, customer: c, product: p, reason: .unsubscribe, eventID: "e", at: Fixtures.now)
        let expire = WebhookEvent.expiration(purchase, customer: c, product: p, reason: .billingError, eventID: "e", at: Fixtures.now)
        let issue = WebhookEvent.billingIssue(purchase, customer: c, product: p, eventID: "e", at: Fixtures.now)
        #expect(try JSON(WebhookPayload.body(cancel))["event"]?["cancel_reason"] == .string("UNSUBSCRIBE"))
        #expect(try JSON(WebhookPayload.body(expire))["event"]?["expiration_reason"] == .string("BILLING_ERROR"))
        #expect(try JSON(WebhookPayload.body(issue))["event"]?["grace_period_expiration_at_ms"] == .number(1_770_000_000_000))
        #expect(try JSON(WebhookPayload.body(issue))["event"]?["cancel_reason"] == nil)
        #expect(WebhookEvent.uncancellation(purchase, customer: c, product: p, eventID: "e", at: Fixtures.now).type == .uncancellation)
    }

    @Test func environmentStoreAndPeriodMapping() {
        #expect(WebhookEnvironment(isSandbox: true) == .sandbox)
        #expect(WebhookEnvironment(isSandbox: false).rawValue == "PRODUCTION")
        #expect([Store.rcBilling, .stripe, .external, .promotional].map { WebhookStore($0) } == [.rcBilling, .stripe, .external, .promotional])
        #expect(WebhookStore(Store(rawValue: "play_store")) == .playStore)
        #expect(PeriodType.allCases.map { WebhookPeriodType($0).rawValue } == ["NORMAL", "INTRO", "TRIAL", "PREPAID"])
        var purchase = Fixtures.oneTime
        purchase.isSandbox = false
        let event = WebhookEvent.purchase(purchase, customer: Fixtures.customer, product: Fixtures.lifetime, eventID: "e", at: Fixtures.now)
        #expect(event.environment == .production)
    }

    @Test func aliasAndTestEvents() throws {
        let alias = WebhookEvent.alias(customer: Fixtures.customer, environment: .production, eventID: "e1", at: Fixtures.now)
        let json = try JSON(WebhookPayload.body(alias))["event"]
        #expect(json?["type"] == .string("SUBSCRIBER_ALIAS"))
        #expect(json?["app_user_id"] == .string("user_42"))
        #expect(json?["product_id"] == nil)
        let test = WebhookEvent.test(appID: "app_1", eventID: "e2", at: Fixtures.now)
        #expect(
            try JSON(WebhookPayload.body(test))
                == JSON(
                    """
                    {"api_version": "1.0", "event": {"id": "e2", "type": "TEST", "app_id": "app_1", "event_timestamp_ms": 1767225700000,
                     "environment": "SANDBOX", "subscriber_attributes": {}}}
                    """))
        #expect(WebhookEventType.known.count == 13)
    }

    @Test(arguments: [
        (OfferRedemptionKind.initialBuy, "INITIAL_PURCHASE", "SUBSCRIBED", String?("INITIAL_BUY")),
        (.resubscribe, "RENEWAL", "SUBSCRIBED", "RESUBSCRIBE"),
        (.upgrade, "PRODUCT_CHANGE", "OFFER_REDEEMED", "UPGRADE"),
        (.downgrade, "PRODUCT_CHANGE", "OFFER_REDEEMED", "DOWNGRADE"),
        (.extend, "OFFER_CODE_REDEEMED", "OFFER_REDEEMED", nil),
        (.crossgrade, "OFFER_CODE_REDEEMED", "OFFER_REDEEMED", nil),
    ])
    func offerRedemptionsMirrorApplesNotifications(kind: OfferRedemptionKind, type: String, notification: String, subtype: String?) throws {
        var purchase = Fixtures.subscription
        purchase.offer = PurchaseOffer(offerID: "ofr_1", referenceName: "Spring", discountType: .freeTrial, period: "P1M")
        let event = WebhookEvent.offerRedemption(
            purchase, customer: Fixtures.customer, product: Fixtures.monthly, kind: kind,
            codeType: "custom", customCode: "SPRING", eventID: "e1", at: Fixtures.now)
        let json = try JSON(WebhookPayload.body(event))["event"]
        #expect(json?["type"] == .string(type))
        #expect(json?["offer_code"] == .string("SPRING"))
        #expect(
            json?["offer"]
                == .object([
                    "offer_id": .string("ofr_1"), "reference_name": .string("Spring"), "code_type": .string("custom"),
                    "discount_type": .string("free_trial"), "period": .string("P1M"), "notification_type": .string(notification),
                    "subtype": subtype.map(JSON.string) ?? .null,
                ]))
    }
}

@Suite struct JSONHelperTests {
    @Test func comparesStructurally() throws {
        #expect(try JSON("1") == .number(1))
        #expect(try JSON("true") == .bool(true))
        #expect(try JSON(#"{"a": null}"#) != JSON("{}"))
        #expect(try JSON(#"{"a": [1, "x"]}"#) == JSON(#"{"a":[1.0,"x"]}"#))
    }
}
