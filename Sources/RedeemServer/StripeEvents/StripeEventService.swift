import Foundation
import Logging
import RedeemCore
import RedeemStore
import RedeemStripe

/// Applies Stripe's events: verified with Stripe's signature scheme before anything is touched, applied once per
/// event ID in the same transaction as their effects (the buyer's lifecycle notices among them), with the buyer's receipt
/// queued for a new purchase.
struct StripeEventService: Sendable {
    let store: any StripeEventStore
    let clock: any RedeemClock
    let webhookSecret: String?
    let emailQueue: EmailQueue
    /// Ends a chargeback's subscription in Stripe; nil without a secret key.
    var stripe: StripeSessions? = nil

    /// Returns false when the event was applied before (a redelivery).
    func receive(payload bytes: [UInt8], signature: String?) async throws -> Bool {
        guard let webhookSecret else { throw StripeEventError.notConfigured }
        do {
            try StripeSignature.verify(payload: bytes, header: signature, secret: webhookSecret, now: clock.now())
        } catch {
            throw StripeEventError.signatureRejected("\(error)")
        }
        let event: StripeEvent
        do { event = try StripeEvent(json: bytes) } catch { throw StripeEventError.notAnEvent("\(error)") }
        if case .dispute(let dispute) = event.payload { try await endSubscription(disputed: dispute) }
        let outcome = try await store.processStoreEvent(
            source: "stripe", eventID: event.eventID, type: event.type, now: clock.now(), mail: emailQueue.lifecycle
        ) { tx in
            try await Self.apply(event, tx)
        }
        // A refund, a renewal turned off or a failed payment may have queued the buyer's notice.
        if outcome != nil { emailQueue.wake() }
        if case .checkoutSessionAsyncPaymentFailed(let session) = event.payload, let id = session.metadata["redeem_checkout_id"] {
            try await store.advanceWebCheckout(id: id, to: .failed, now: clock.now())
        }
        if case let purchase?? = outcome {
            RedeemMetrics.purchase(source: "stripe")
            // The receipt mints the buyer's redemption link when it is sent.
            _ = try await emailQueue.queueReceipt(for: purchase)
        }
        return outcome != nil
    }

    /// A chargeback's subscription ends in Stripe before the event is recorded, so Stripe charges the buyer nothing more. If
    /// Stripe refuses, nothing is recorded and Stripe delivers the event again; once recorded, a redelivery asks nothing.
    func endSubscription(disputed dispute: StripeDispute) async throws {
        guard let reference = dispute.paymentIntentID, let purchase = try await store.purchase(paidWith: reference),
            purchase.store == .stripe, purchase.storeTransactionID.hasPrefix("sub_"),
            try Self.dispute(dispute).isChargeback, purchase.dispute.map({ $0.id != dispute.id || !$0.isChargeback }) ?? true
        else { return }
        guard let stripe else {
            // No secret key: Redeem cannot call Stripe. The access still ends; the subscription must be cancelled in Stripe.
            Logger(label: "redeem").warning(
                "A chargeback's subscription cannot be cancelled without a Stripe secret key", metadata: ["purchase": "\(purchase.id)"])
            return
        }
        try await stripe.cancelNow(subscriptionID: purchase.storeTransactionID, disputeID: dispute.id)
    }

    /// Returns a purchase the event granted.
    static func apply(_ event: StripeEvent, _ tx: LifecycleTransaction) async throws -> Purchase? {
        switch event.payload {
        case .checkoutSessionCompleted(let session) where session.paymentStatus == .paid || session.paymentStatus == .noPaymentRequired,
            .checkoutSessionAsyncPaymentSucceeded(let session):
            let grant = try grant(for: session, livemode: event.livemode, completedAt: event.created)
            if let code = session.metadata["redeem_offer_code"] { return try await offerPurchase(code: code, grant: grant, session: session, tx) }
            return try await tx.grant(grant, paymentReference: session.paymentIntentID)
        case .checkoutSessionCompleted, .checkoutSessionAsyncPaymentFailed, .unhandled:
            return nil
        case .invoicePaid(let invoice):
            guard let purchase = try await subscription(invoice.subscriptionID, tx) else { return nil }
            if invoice.billingReason != .subscriptionCreate, let end = invoice.periodEnd {
                // The first charge after a trial is its conversion, whichever of this and the subscription's update comes first.
                // A renewal's receipt states the plan's price: not what a plan switch's proration charged.
                if purchase.periodType == .trial {
                    // A plan switch's invoice ended the trial: the switch's own notice tells the buyer.
                    try await tx.convertTrial(purchase, until: end, receipted: invoice.billingReason != .subscriptionUpdate)
                } else {
                    try await tx.renew(purchase, until: end, receipted: invoice.billingReason != .subscriptionUpdate)
                }
            }
            // The latest payment is what an operator's refund refunds.
            if let paymentIntent = invoice.paymentIntentID { try await tx.setPaymentReference(purchase, paymentIntent) }
        case .invoicePaymentFailed(let invoice):
            guard let purchase = try await subscription(invoice.subscriptionID, tx) else { return nil }
            try await tx.billingIssue(purchase)
        case .subscriptionUpdated(let subscription):
            guard var purchase = try await Self.subscription(subscription.id, tx) else { return nil }
            if ["canceled", "incomplete_expired"].contains(subscription.status.rawValue) {
                try await tx.expire(purchase, at: subscription.endedAt ?? event.created)
                return nil
            }
            let switched = try await planChange(purchase, subscription, tx)
            if let switched {
                purchase = switched
            } else if let waiting = purchase.scheduledPlan, let schedule = waiting.stripeScheduleID, subscription.scheduleID != schedule,
                event.created > waiting.requestedAt
            {
                // The schedule holding a switch for the period's end was released in Stripe (its dashboard): no switch waits.
                purchase = try await tx.schedule(nil, for: purchase)
            }
            if subscription.status == .active, purchase.periodType == .trial {
                // trialing → active: the trial converted to paid.
                try await tx.convertTrial(
                    purchase, until: subscription.currentPeriodEnd ?? purchase.expiresDate ?? event.created, receipted: switched == nil)
            } else {
                // The reason given in Redeem's portal comes back from Stripe with the cancellation, as does one given
                // in Stripe's own portal or dashboard; a value Stripe adds later is not one Redeem knows, so none.
                try await tx.setWillRenew(
                    purchase, willRenew: subscription.willRenew, periodEnd: subscription.currentPeriodEnd,
                    feedback: subscription.cancellationFeedback.flatMap(CancellationFeedback.init(rawValue:)))
            }
        case .subscriptionDeleted(let subscription):
            guard let purchase = try await Self.subscription(subscription.id, tx) else { return nil }
            try await tx.expire(purchase, at: subscription.endedAt ?? event.created)
        case .chargeRefunded(let charge):
            if let reference = charge.paymentIntentID, let purchase = try await tx.purchase(paymentReference: reference) {
                let refunded: Price
                do { refunded = try Price(stripeAmount: charge.amountRefunded, currency: charge.currency) } catch {
                    throw StripeEventError.unreadableAmount(error.reason)
                }
                try await tx.refund(purchase, amount: refunded)
            }
        case .dispute(let dispute):
            // Any period's payment: the bank took it back, whichever renewal it paid.
            if let reference = dispute.paymentIntentID, let purchase = try await tx.purchase(paidWith: reference) {
                try await tx.dispute(purchase, try Self.dispute(dispute))
            }
        }
        return nil
    }

    /// A paid offer claimed on the web: the code is redeemed with the payment, in the event's transaction. If the code
    /// was used up between the page and the payment, the payment still buys the product, recorded without the offer.
    static func offerPurchase(code: String, grant: PurchaseGrant, session: StripeCheckoutSession, _ tx: LifecycleTransaction) async throws -> Purchase
    {
        if let existing = try await tx.purchase(store: .stripe, transactionID: session.id) { return existing }
        var request = OfferCodeRedemptionRequest(
            appID: grant.appID, code: code, claimant: grant.appUserID, channel: .web, isSandbox: grant.isSandbox, store: .stripe,
            email: grant.email, payment: .init(price: try amount(of: session), storeTransactionID: session.id),
            checkoutReference: grant.checkoutReference, now: grant.purchaseDate
        )
        request.language = grant.language
        request.termsConsent = grant.termsConsent
        switch try await tx.redeemOfferCode(request) {
        case .success(let redemption):
            if let reference = session.paymentIntentID { try await tx.setPaymentReference(redemption.purchase, reference) }
            return redemption.purchase
        case .failure:
            return try await tx.grant(grant, paymentReference: session.paymentIntentID)
        }
    }

    /// A plan switched in Stripe (its Billing Portal or dashboard): the subscription's Price now bills another of the app's
    /// products (Core's `PlanChange`), which the purchase becomes. A Price Redeem cannot place changes nothing.
    static func planChange(_ purchase: Purchase, _ subscription: StripeSubscription, _ tx: LifecycleTransaction) async throws -> Purchase? {
        guard let price = subscription.price else { return nil }
        // Redeem's own Prices also name their app: another app's product of the same ID is not this one.
        let sameApp = price.metadata["app_id"].map { $0 == purchase.appID } ?? true
        let named = try await tx.product(
            appID: purchase.appID, stripePriceID: price.id, metadataProductID: sameApp ? price.metadata["product_id"] : nil)
        guard let product = PlanChange.target(of: purchase, named: named) else { return nil }
        let amount = price.unitAmount.flatMap { amount in price.currency.flatMap { try? Price(stripeAmount: amount, currency: $0) } }
        return try await tx.changeProduct(purchase, to: product, price: amount, periodEnd: subscription.currentPeriodEnd)
    }

    static func subscription(_ id: String?, _ tx: LifecycleTransaction) async throws -> Purchase? {
        guard let id else { return nil }
        guard let purchase = try await tx.purchase(store: .stripe, transactionID: id) else { throw StripeEventError.notYetKnown }
        return purchase
    }

    /// Stripe's dispute in Core's words, its amount read through `Price`.
    static func dispute(_ dispute: StripeDispute) throws -> PurchaseDispute {
        let amount: Price
        do { amount = try Price(stripeAmount: dispute.amount, currency: dispute.currency) } catch {
            throw StripeEventError.unreadableAmount(error.reason)
        }
        return PurchaseDispute(id: dispute.id, openedAt: dispute.created, reason: dispute.reason, status: dispute.status, amount: amount)
    }

    /// What the session charged, in its currency: Stripe's integer amount read through `Price`, never guessed.
    static func amount(of session: StripeCheckoutSession) throws -> Price {
        guard let total = session.amountTotal, let currency = session.currency else {
            throw StripeEventError.unreadableAmount("no amount_total and currency")
        }
        do {
            return try Price(stripeAmount: total, currency: currency)
        } catch {
            throw StripeEventError.unreadableAmount(error.reason)
        }
    }

    /// Checkout Sessions carry Redeem's `app_id`, `product_id` and (optionally) `app_user_id` in their metadata.
    /// `completedAt`: when the buyer paid (the event's time), which is when they ticked a consent box.
    static func grant(for session: StripeCheckoutSession, livemode: Bool, completedAt: Date) throws -> PurchaseGrant {
        guard let appID = session.metadata["app_id"], let productID = session.metadata["product_id"] else {
            throw StripeEventError.noRedeemMetadata
        }
        let buyer = try session.metadata["app_user_id"].flatMap { $0.isEmpty ? nil : try AppUserID.parse($0) } ?? AppUserID.anonymous()
        let reserved: Set<String> = [
            "app_id", "product_id", "app_user_id", "redeem_checkout_id", "redeem_offer_code", "redeem_trial_days", "redeem_language",
            "redeem_terms_url",
        ]
        var grant = PurchaseGrant(
            appID: appID, appUserID: buyer, productID: productID, store: .stripe, isSandbox: !livemode, purchaseDate: session.created,
            storeTransactionID: session.subscriptionID ?? session.id,
            price: try amount(of: session),
            email: session.email, customParams: session.metadata.filter { !reserved.contains($0.key) }
        )
        grant.checkoutReference = session.metadata["redeem_checkout_id"] ?? session.id
        // The checkout page's language (`StripeSessions`), when it is one Redeem speaks.
        grant.language = session.metadata["redeem_language"].flatMap { BuyerLanguages.bundled.texts[$0]?.language }
        // Stripe's consent box, ticked: the terms it showed, kept with the purchase (`TermsConsent`).
        if session.acceptedTermsOfService, let terms = session.metadata["redeem_terms_url"] {
            grant.termsConsent = TermsConsent(acceptedAt: completedAt, termsURL: terms)
        }
        // A Stripe trial: nothing charged yet; it ends after its days unless Stripe reports otherwise.
        if let days = session.metadata["redeem_trial_days"].flatMap(Int.init), (1...730).contains(days) {
            grant.periodType = .trial
            grant.expiresDate = TrialRules.trialEnd(days: days, from: session.created)
        }
        return grant
    }
}
