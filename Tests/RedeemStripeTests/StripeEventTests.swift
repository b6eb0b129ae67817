import Foundation
import RedeemStripe
import Testing

@Suite struct StripeEventTests {
    @Test func checkoutSessionCompletedForASubscription() throws {
        let event = try Fixture.event("checkout.session.completed")
        #expect(event.eventID == "evt_1PitH2LkdIwHu7ixd0qWm2Ks")
        #expect(event.type == "checkout.session.completed")
        #expect(event.created == Date(unix: 1_722_518_090))
        #expect(event.livemode == false)
        #expect(event.apiVersion == StripeAPI.version)
        guard case .checkoutSessionCompleted(let session) = event.payload else {
            Issue.record("got \(event.payload)")
            return
        }
        #expect(session.id == "cs_test_b1Rk2pUoZq8yX4mVb6nCdJ0eFgHiKlMnOpQrStUvWxYzA1bC2dE3fG4hI5")
        #expect(session.mode == .subscription)
        #expect(session.paymentStatus == .paid)
        #expect(session.customerID == "cus_QaDzWl4bTQ3m9X")
        #expect(session.subscriptionID == "sub_1PitGzLkdIwHu7ixYb3c4D5e")
        #expect(session.paymentIntentID == nil)
        #expect(session.clientReferenceID == "app_user_7f3c9a21")
        #expect(session.metadata == ["app_id": "app_1a2b3c", "product_id": "pro_monthly", "purchase_id": "pur_01J4C2M5X8"])
        #expect(session.email == "jenny.rosen@example.com")
        #expect(session.amountTotal == 999)
        #expect(session.currency == "usd")
        #expect(session.created == Date(unix: 1_722_517_800))
    }

    @Test func checkoutSessionAsyncPaymentSucceeded() throws {
        let event = try Fixture.event("checkout.session.async_payment_succeeded")
        #expect(event.eventID == "evt_1PjB3kLkdIwHu7ix9FzR0aLm")
        #expect(event.livemode == true)
        guard case .checkoutSessionAsyncPaymentSucceeded(let session) = event.payload else {
            Issue.record("got \(event.payload)")
            return
        }
        #expect(session.mode == .payment)
        #expect(session.paymentStatus == .paid)
        #expect(session.customerID == nil)
        #expect(session.subscriptionID == nil)
        #expect(session.paymentIntentID == "pi_3PitSsLkdIwHu7ix0J3kLm4N")
        #expect(session.clientReferenceID == "app_user_0b44e1d8")
        #expect(session.metadata["product_id"] == "lifetime_unlock")
        #expect(session.email == "max.mustermann@example.de")
        #expect(session.amountTotal == 4999)
        #expect(session.currency == "eur")
    }

    @Test func checkoutSessionAsyncPaymentFailedFallsBackToCustomerEmail() throws {
        let event = try Fixture.event("checkout.session.async_payment_failed")
        #expect(event.created == Date(unix: 1_722_779_788))
        guard case .checkoutSessionAsyncPaymentFailed(let session) = event.payload else {
            Issue.record("got \(event.payload)")
            return
        }
        #expect(session.paymentStatus == .unpaid)
        #expect(session.clientReferenceID == nil)
        #expect(session.metadata.isEmpty)
        #expect(session.email == "sam.doe@example.org")  // customer_details.email is null
        #expect(session.paymentIntentID == "pi_3PitZoLkdIwHu7ix1a2B3c4D")
    }

    @Test func invoicePaid() throws {
        let event = try Fixture.event("invoice.paid")
        #expect(event.eventID == "evt_1PuJ5RLkdIwHu7ixW3nQe8Tb")
        guard case .invoicePaid(let invoice) = event.payload else {
            Issue.record("got \(event.payload)")
            return
        }
        #expect(invoice.id == "in_1PuHzYLkdIwHu7ixR4sT6uVw")
        #expect(invoice.subscriptionID == "sub_1PitGzLkdIwHu7ixYb3c4D5e")
        #expect(invoice.billingReason == .subscriptionCycle)
        #expect(invoice.customerID == "cus_QaDzWl4bTQ3m9X")
        #expect(invoice.status == "paid")
        #expect(invoice.amountPaid == 999)
        #expect(invoice.currency == "usd")
        #expect(invoice.paidAt == Date(unix: 1_725_200_095))
        #expect(invoice.lines.count == 1)
        #expect(invoice.lines.first?.id == "il_1PuHzYLkdIwHu7ixA1b2C3d4")
        #expect(invoice.lines.first?.amount == 999)
        #expect(invoice.lines.first?.period == StripePeriod(start: Date(unix: 1_725_196_485), end: Date(unix: 1_727_788_485)))
        #expect(invoice.periodEnd == Date(unix: 1_727_788_485))
    }

    @Test func invoicePaymentFailed() throws {
        let event = try Fixture.event("invoice.payment_failed")
        guard case .invoicePaymentFailed(let invoice) = event.payload else {
            Issue.record("got \(event.payload)")
            return
        }
        #expect(invoice.id == "in_1PuI0bLkdIwHu7ixM9nB8vC7")
        #expect(invoice.subscriptionID == "sub_1PjCk2LkdIwHu7ixQ9w8E7r6")
        #expect(invoice.customerID == "cus_QbE0Xm5cUR4n0Y")
        #expect(invoice.status == "open")
        #expect(invoice.amountPaid == 0)
        #expect(invoice.paidAt == nil)
    }

    @Test func invoicePaidInTheBasilShape() throws {
        let event = try Fixture.event("invoice.paid.2025-03-31.basil")
        #expect(event.apiVersion == "2025-03-31.basil")
        guard case .invoicePaid(let invoice) = event.payload else {
            Issue.record("got \(event.payload)")
            return
        }
        #expect(invoice.subscriptionID == "sub_1RPkA9LkdIwHu7ixFh2Jg3Kd")  // parent.subscription_details
        #expect(invoice.billingReason == .subscriptionCreate)
        #expect(invoice.customerID == "cus_SKQ0aB1cD2eF3g")
        #expect(invoice.paidAt == Date(unix: 1_747_991_087))
        #expect(invoice.periodEnd == Date(unix: 1_750_583_085))
    }

    @Test func subscriptionUpdated() throws {
        let event = try Fixture.event("customer.subscription.updated")
        #expect(event.eventID == "evt_1PvM2dLkdIwHu7ixP0oI9uY8")
        guard case .subscriptionUpdated(let subscription) = event.payload else {
            Issue.record("got \(event.payload)")
            return
        }
        #expect(subscription.id == "sub_1PitGzLkdIwHu7ixYb3c4D5e")
        #expect(subscription.status == .active)
        #expect(subscription.customerID == "cus_QaDzWl4bTQ3m9X")
        #expect(subscription.cancelAtPeriodEnd)
        #expect(subscription.canceledAt == Date(unix: 1_725_451_202))
        #expect(subscription.currentPeriodEnd == Date(unix: 1_727_788_485))
        #expect(subscription.endedAt == nil)
        #expect(subscription.metadata["purchase_id"] == "pur_01J4C2M5X8")
        #expect(subscription.priceID == "price_1PitGxLkdIwHu7ixH8jK9lMn")
        // What a plan switch changes: the item's Price, its amount and currency.
        #expect(subscription.price?.unitAmount == 999 && subscription.price?.currency == "usd" && subscription.price?.metadata == [:])
    }

    @Test func subscriptionUpdatedInTheBasilShape() throws {
        let event = try Fixture.event("customer.subscription.updated.2025-03-31.basil")
        guard case .subscriptionUpdated(let subscription) = event.payload else {
            Issue.record("got \(event.payload)")
            return
        }
        #expect(subscription.id == "sub_1RPkA9LkdIwHu7ixFh2Jg3Kd")
        #expect(subscription.currentPeriodEnd == Date(unix: 1_750_583_085))  // items.data[0]
        #expect(subscription.priceID == "price_1RPkA7LkdIwHu7ixU8iO9pQ0")
        #expect(subscription.cancelAtPeriodEnd)
    }

    @Test func subscriptionDeleted() throws {
        let event = try Fixture.event("customer.subscription.deleted")
        guard case .subscriptionDeleted(let subscription) = event.payload else {
            Issue.record("got \(event.payload)")
            return
        }
        #expect(subscription.status == .canceled)
        #expect(subscription.endedAt == Date(unix: 1_727_788_485))
        #expect(subscription.canceledAt == Date(unix: 1_725_451_202))
    }

    @Test func chargeRefunded() throws {
        let event = try Fixture.event("charge.refunded")
        #expect(event.eventID == "evt_3PitH1LkdIwHu7ix1Kj8Hg7F")
        guard case .chargeRefunded(let charge) = event.payload else {
            Issue.record("got \(event.payload)")
            return
        }
        #expect(charge.id == "ch_3PitH1LkdIwHu7ix1nB2vC3x")
        #expect(charge.paymentIntentID == "pi_3PitH1LkdIwHu7ix1qW2eR3t")
        #expect(charge.invoiceID == "in_1PitH0LkdIwHu7ixK2yqR5tU")
        #expect(charge.amount == 999)
        #expect(charge.amountRefunded == 999)
        #expect(charge.refunded)
        #expect(charge.currency == "usd")
    }

    @Test func disputes() throws {
        let opened = try Fixture.event("charge.dispute.created")
        guard case .dispute(let dispute) = opened.payload else {
            Issue.record("got \(opened.payload)")
            return
        }
        #expect(dispute.id == "du_1Pj8Kq2eZvKYlo2CdQ3mR7tY")
        #expect(dispute.paymentIntentID == "pi_3Pj8Ab2eZvKYlo2C0aB1cD2e")
        #expect(dispute.amount == 4999)
        #expect(dispute.currency == "usd")
        #expect(dispute.reason == "fraudulent")
        #expect(dispute.status == "needs_response")
        guard case .dispute(let closed) = try Fixture.event("charge.dispute.closed").payload else { return }
        #expect(closed.status == "lost")
    }

    @Test func unknownTypesAreUnhandledNotErrors() throws {
        let event = try Fixture.event("customer.created")
        #expect(event.payload == .unhandled(type: "customer.created"))
        #expect(event.eventID == "evt_1PitGzLkdIwHu7ixs4D5f6G7")
        #expect(event.created == Date(unix: 1_722_518_084))
        #expect(!StripeEvent.handledTypes.contains(event.type))
    }

    @Test func everyFixtureDecodesToItsType() throws {
        let expected: [String: String] = [
            "checkout.session.completed": "checkoutSessionCompleted",
            "checkout.session.async_payment_succeeded": "checkoutSessionAsyncPaymentSucceeded",
            "checkout.session.async_payment_failed": "checkoutSessionAsyncPaymentFailed",
            "invoice.paid": "invoicePaid",
            "invoice.paid.2025-03-31.basil": "invoicePaid",
            "invoice.payment_failed": "invoicePaymentFailed",
            "customer.subscription.updated": "subscriptionUpdated",
            "customer.subscription.updated.2025-03-31.basil": "subscriptionUpdated",
            "customer.subscription.deleted": "subscriptionDeleted",
            "charge.refunded": "chargeRefunded",
            "charge.dispute.created": "dispute",
            "charge.dispute.updated": "dispute",
            "charge.dispute.closed": "dispute",
            "customer.created": "unhandled",
        ]
        for (name, caseName) in expected {
            let event = try Fixture.event(name)
            #expect(name.hasPrefix(event.type))
            #expect(String(describing: event.payload).hasPrefix(caseName + "("), "\(name)")
        }
        #expect(Set(StripeEvent.handledTypes) == Set(expected.keys.filter { !$0.contains("basil") && $0 != "customer.created" }))
    }

    @Test func expandedReferencesAndOpenValues() throws {
        let json = #"""
            {"id": "evt_1", "object": "event", "type": "checkout.session.completed", "created": 1722518090,
             "livemode": true, "data": {"object": {"id": "cs_1", "object": "checkout.session", "mode": "setup",
             "payment_status": "something_new", "customer": {"id": "cus_1", "object": "customer"},
             "subscription": null, "created": 1722517800}}}
            """#
        let event = try StripeEvent(json: Array(json.utf8))
        guard case .checkoutSessionCompleted(let session) = event.payload else {
            Issue.record("got \(event.payload)")
            return
        }
        #expect(session.customerID == "cus_1")
        #expect(session.mode == .setup)
        #expect(session.paymentStatus.rawValue == "something_new")
        #expect(session.email == nil)
        #expect(session.metadata.isEmpty)
        #expect(event.apiVersion == nil)
    }

    @Test func malformedEventsThrow() {
        let missingObjectID = #"{"id": "evt_1", "type": "charge.refunded", "created": 1, "livemode": false, "data": {"object": {}}}"#
        let notAnEvent = #"{"error": {"type": "invalid_request_error"}}"#
        for json in [missingObjectID, notAnEvent, "", "[]"] {
            #expect(throws: DecodingError.self) { try StripeEvent(json: Array(json.utf8)) }
        }
    }
}
