import Foundation
import RedeemCore
import RedeemStore

/// The support operations the console, the admin API and the CLI share: find a customer, send a purchase a new
/// redemption link, refund or cancel a purchase, grant and revoke entitlements, transfer a purchase, retry an e-mail. Who may call them is the caller's check (console roles, admin keys);
/// every write is audited under `actor`.
public struct SupportService: Sendable {
    let store: any SupportStore
    let clock: any RedeemClock
    let links: RedemptionLinkIssuer
    let emailQueue: EmailQueue
    /// Refunds and cancellations of Stripe purchases; nil when Stripe is not configured (and in the local CLI).
    let stripe: StripeSessions?

    init(store: any SupportStore, clock: any RedeemClock, links: RedemptionLinkIssuer, emailQueue: EmailQueue, stripe: StripeSessions?) {
        self.store = store
        self.clock = clock
        self.links = links
        self.emailQueue = emailQueue
        self.stripe = stripe
    }

    public static let pageSize = 25

    /// One page of the customers `query` names exactly (see `SupportStore.searchCustomers`), and whether more follow.
    public func search(appID: String, query: String, page: Int) async throws -> (matches: [CustomerMatch], more: Bool) {
        _ = try await store.app(id: appID)
        let found = try await store.searchCustomers(
            appID: appID, query: query, limit: Self.pageSize + 1, offset: (max(1, page) - 1) * Self.pageSize)
        return (Array(found.prefix(Self.pageSize)), found.count > Self.pageSize)
    }

    /// A new single-use link for a purchase, and the new-link e-mail to its address when e-mail is on and none went out
    /// in the quiet period.
    public struct NewLink: Sendable {
        public let purchase: Purchase
        public let link: RedemptionLink
        public let emailed: Bool
    }

    /// `emailing` false: the link is only shown (the console's "Show a new link", the portal), so it is the one token.
    public func sendNewLink(appID: String, purchaseID: String, actor: String, emailing: Bool = true) async throws -> NewLink {
        let purchase = try await store.purchase(appID: appID, id: purchaseID)
        let app = try await store.app(id: appID)
        let now = clock.now()
        guard let link = links.make(for: purchase, app: app, now: now) else { throw Self.noLinks }
        let emailed = try await store.issueLink(
            appID: appID, purchaseID: purchase.id, tokenHash: SecretToken.hash(link.token), now: now, expiresAt: link.expiresAt,
            email: emailing ? emailQueue.email(.newLink, for: purchase, app: app) : nil, quietPeriod: emailQueue.newLinkQuietPeriod,
            audit: AuditEntry(at: now, actor: actor, action: "purchase.link", objectType: "purchase", objectID: purchase.id, appID: appID))
        if emailed { emailQueue.wake() }
        return NewLink(purchase: purchase, link: link, emailed: emailed)
    }

    /// A new link by e-mail only: the e-mail mints it when sent, so the buyer's link is the one token (nothing is shown).
    public func emailNewLink(appID: String, purchaseID: String, actor: String) async throws -> Purchase {
        let purchase = try await store.purchase(appID: appID, id: purchaseID)
        let app = try await store.app(id: appID)
        let now = clock.now()
        guard links.make(for: purchase, app: app, now: now) != nil else { throw Self.noLinks }
        guard let email = emailQueue.email(.newLink, for: purchase, app: app) else {
            throw APIError.conflict("No e-mail can go out for this purchase: e-mail is off here, or it has no address. Show a new link instead.")
        }
        let queued = try await store.issueLink(
            appID: appID, purchaseID: purchase.id, tokenHash: nil, now: now, expiresAt: now, email: email, quietPeriod: emailQueue.newLinkQuietPeriod,
            audit: AuditEntry(at: now, actor: actor, action: "purchase.link", objectType: "purchase", objectID: purchase.id, appID: appID))
        guard queued else {
            throw APIError.conflict("A link was e-mailed to this address a moment ago. Wait a few minutes before sending another, or show one here.")
        }
        emailQueue.wake()
        return purchase
    }

    static let noLinks = APIError.conflict("This app's redemption-link policy gives no links for this purchase.")

    /// What a refund or cancellation did: applied here, or asked of Stripe (whose webhook applies it).
    public struct Outcome: Sendable {
        public let purchase: Purchase
        /// True when Stripe was asked and its webhook will apply the change.
        public let pending: Bool
        /// A plan switch Stripe holds until its payment goes through (it failed, or the bank asks the buyer to confirm).
        public var awaitsPayment = false
        /// A plan switch that waits for the period's end (a downgrade; `purchase.scheduledPlan`, taking effect on its
        /// `expiresDate`).
        public var scheduled = false
        /// A plan switch asked for the plan it is on: it stays (a switch that waited for the period's end is dropped).
        public var kept = false

        /// What a plan switch did, as the portal and the console name it in their notices.
        public enum PlanResult: String, Sendable {
            case changed = "plan-changed"
            case requested = "plan-requested"
            case awaitsPayment = "plan-awaits-payment"
            case scheduled = "plan-scheduled"
            case kept = "plan-kept"
        }

        public var planResult: PlanResult {
            if kept { return .kept }
            if scheduled { return .scheduled }
            if awaitsPayment { return .awaitsPayment }
            return pending ? .requested : .changed
        }
    }

    /// Refunds a purchase: a sandbox one at once (its CANCELLATION event, the buyer's notice and the audit in one
    /// transaction); a Stripe one through Stripe's refunds API, applied when Stripe's `charge.refunded` arrives. See
    /// `SupportRules.refund`.
    public func refund(appID: String, purchaseID: String, actor: String) async throws -> Outcome {
        let purchase = try await store.purchase(appID: appID, id: purchaseID)
        let now = clock.now()
        let audit = AuditEntry(at: now, actor: actor, action: "purchase.refund", objectType: "purchase", objectID: purchase.id, appID: appID)
        switch SupportRules.refund(purchase) {
        case .failure(let refusal): throw APIError.conflict(refusal.reason)
        case .success(.here):
            let refunded = try await store.refundPurchase(appID: appID, id: purchase.id, now: now, audit: audit, mail: emailQueue.lifecycle)
            emailQueue.wake()
            return Outcome(purchase: refunded, pending: false)
        case .success(.stripe):
            guard let paymentIntent = try await store.paymentReference(appID: appID, purchaseID: purchase.id) else {
                throw APIError.conflict("Stripe has not reported a payment for this purchase yet; refund it in Stripe's dashboard.")
            }
            let stripe = try requireStripe()
            try await store.recordRequest(audit.with(detail: "asked Stripe to refund \(paymentIntent)"))
            try await stripe.support(.refund(paymentIntentID: paymentIntent), idempotencyKey: "redeem-refund-\(purchase.id)")
            return Outcome(purchase: purchase, pending: true)
        }
    }

    /// Stops a subscription renewing at the end of its period: a sandbox one at once, a Stripe one through Stripe.
    /// `feedback`: the buyer's reason, if they gave one; audited, and sent on to Stripe. `notifying` false: the buyer is
    /// not e-mailed (an erasure's cancellations).
    public func cancelAtPeriodEnd(
        appID: String, purchaseID: String, actor: String, feedback: CancellationFeedback? = nil, notifying: Bool = true
    ) async throws -> Outcome {
        try await setRenewal(appID: appID, purchaseID: purchaseID, renews: false, actor: actor, feedback: feedback, notifying: notifying)
    }

    /// Lets a subscription set to end with its period renew again: a sandbox one at once, a Stripe one through Stripe.
    public func resume(appID: String, purchaseID: String, actor: String) async throws -> Outcome {
        try await setRenewal(appID: appID, purchaseID: purchaseID, renews: true, actor: actor)
    }

    /// Cancel at period end, or resume: where it applies is `SupportRules`' choice (here, or Stripe's
    /// `cancel_at_period_end`, applied when `customer.subscription.updated` arrives).
    func setRenewal(
        appID: String, purchaseID: String, renews: Bool, actor: String, feedback: CancellationFeedback? = nil, notifying: Bool = true
    ) async throws -> Outcome {
        let purchase = try await store.purchase(appID: appID, id: purchaseID)
        let now = clock.now()
        let action = renews ? "purchase.resume" : "purchase.cancel"
        let reason = feedback.map { "reason: \($0.label)" }
        let audit = AuditEntry(
            at: now, actor: actor, action: action, objectType: "purchase", objectID: purchase.id, appID: appID, detail: reason)
        switch renews ? SupportRules.resume(purchase, now: now) : SupportRules.cancelAtPeriodEnd(purchase, now: now) {
        case .failure(let refusal): throw APIError.conflict(refusal.reason)
        case .success(.here):
            let updated = try await store.setRenewal(
                appID: appID, purchaseID: purchase.id, renews: renews, feedback: feedback, now: now, audit: audit,
                mail: notifying ? emailQueue.lifecycle : nil)
            if notifying { emailQueue.wake() }
            return Outcome(purchase: updated, pending: false)
        case .success(.stripe):
            let subscription = purchase.storeTransactionID
            let stripe = try requireStripe()
            let asked = renews ? "asked Stripe to renew at period end" : "asked Stripe to cancel at period end"
            try await store.recordRequest(audit.with(detail: ([asked] + [reason].compactMap { $0 }).joined(separator: "; ")))
            // Stripe refuses to cancel a subscription its schedule manages: a switch waiting for the period's end goes first.
            if !renews, let schedule = purchase.scheduledPlan?.stripeScheduleID {
                try await stripe.releaseSchedule(
                    subscriptionID: subscription, scheduleID: schedule,
                    idempotencyKey: "redeem-release-\(purchase.id)-\(Int(now.timeIntervalSince1970))")
            }
            try await stripe.support(
                renews ? .resume(subscriptionID: subscription) : .cancelAtPeriodEnd(subscriptionID: subscription, feedback: feedback?.rawValue),
                // Per second, not per purchase: a cancel after a resume must reach Stripe, not replay the first answer.
                idempotencyKey: "redeem-\(renews ? "resume" : "cancel")-\(purchase.id)-\(Int(now.timeIntervalSince1970))")
            return Outcome(purchase: purchase, pending: true)
        }
    }

    /// Grants `entitlementID` to `appUserID` for a preset duration or until a date (RevenueCat's promotional grant).
    /// `requestID`: the form's own ID or the API caller's `Idempotency-Key`; sending it again answers with its grant
    /// instead of granting again.
    public func grant(
        appID: String, appUserID: String, entitlementID: String, duration: PromotionalDuration?, until: Date?, start: Date? = nil,
        requestID: RequestID? = nil, actor: String
    ) async throws -> Purchase {
        let user = try AppUserID.parse(appUserID)
        let now = clock.now()
        var plan = try PromotionalGrant.plan(entitlementID: entitlementID, duration: duration, until: until, start: start, now: now)
        if let requestID { plan = plan.submitted(by: requestID.value) }
        let detail = "\(entitlementID) for \(user.rawValue) until " + (plan.expiresDate.map(ISODate.format) ?? "forever")
        let audit = AuditEntry(at: now, actor: actor, action: "grant.create", objectType: "purchase", objectID: "", appID: appID, detail: detail)
        let purchase: Purchase
        do {
            purchase = try await store.grantPromotional(appID: appID, appUserID: user, grant: plan, now: now, audit: audit)
        } catch let error as StoreError where error.isIdempotencyMismatch {
            throw requestID?.refusal("granted something else") ?? error
        }
        RedeemMetrics.purchase(source: "promotional")
        return purchase
    }

    /// Ends a granted entitlement now.
    public func revokeGrant(appID: String, purchaseID: String, actor: String) async throws -> Purchase {
        let now = clock.now()
        let audit = AuditEntry(at: now, actor: actor, action: "grant.revoke", objectType: "purchase", objectID: purchaseID, appID: appID)
        return try await store.revokeGrant(appID: appID, purchaseID: purchaseID, now: now, audit: audit)
    }

    /// Ends every live grant of `entitlementID` for `appUserID` (RevenueCat's `revoke_promotionals`) in one transaction;
    /// each is audited. An unknown user, or nothing to revoke, changes nothing.
    public func revokeGrants(appID: String, appUserID: String, entitlementID: String, actor: String) async throws {
        let user = try AppUserID.parse(appUserID)
        let now = clock.now()
        let audit = AuditEntry(at: now, actor: actor, action: "grant.revoke", objectType: "purchase", objectID: "", appID: appID)
        _ = try await store.revokeGrants(appID: appID, appUserID: user, entitlementID: entitlementID, now: now, audit: audit)
    }

    /// Moves a purchase to another app user ID (created if new), with a `TRANSFER` event.
    public func transfer(appID: String, purchaseID: String, to appUserID: String, actor: String) async throws -> Purchase {
        let user = try AppUserID.parse(appUserID)
        let now = clock.now()
        let audit = AuditEntry(
            at: now, actor: actor, action: "purchase.transfer", objectType: "purchase", objectID: purchaseID, appID: appID,
            detail: "to \(user.rawValue)")
        return try await store.transferPurchase(appID: appID, purchaseID: purchaseID, to: user, now: now, audit: audit)
    }

    /// Sends a failed or retrying e-mail again now; the delivery worker picks it up.
    public func retryEmail(appID: String, emailID: String, actor: String) async throws -> QueuedEmail {
        let now = clock.now()
        let audit = AuditEntry(at: now, actor: actor, action: "email.retry", objectType: "email", objectID: emailID, appID: appID)
        return try await store.retryEmail(appID: appID, id: emailID, now: now, audit: audit)
    }

    /// Sends every failed e-mail of the app again now; returns how many.
    public func retryFailedEmails(appID: String, actor: String) async throws -> Int {
        _ = try await store.app(id: appID)
        let now = clock.now()
        let audit = AuditEntry(at: now, actor: actor, action: "email.retry_all", objectType: "app", objectID: appID, appID: appID)
        return try await store.retryFailedEmails(appID: appID, now: now, audit: audit)
    }

    /// A purchase with everything support shows about it.
    public struct PurchaseDetail: Sendable {
        public let purchase: Purchase
        public let links: [IssuedLink]
        public let attempts: [RedemptionAttempt]
        public let emails: [SentEmail]
        public let webhooks: [WebhookDelivery]
    }

    public func detail(appID: String, purchaseID: String) async throws -> PurchaseDetail {
        try await detail(of: try await store.purchase(appID: appID, id: purchaseID))
    }

    func detail(of purchase: Purchase) async throws -> PurchaseDetail {
        PurchaseDetail(
            purchase: purchase, links: try await store.redemptionLinks(appID: purchase.appID, purchaseID: purchase.id),
            attempts: try await store.redemptionAttempts(appID: purchase.appID, purchaseID: purchase.id),
            emails: try await store.emails(purchaseID: purchase.id).map(SentEmail.init),
            webhooks: try await store.webhookDeliveries(appID: purchase.appID, transactionID: purchase.storeTransactionID, limit: 50))
    }

    /// The purchases of the customer `appUserID` names, oldest first.
    public func purchases(appID: String, appUserID: String) async throws -> [Purchase] {
        let user = try AppUserID.parse(appUserID)
        guard let customer = try await store.findCustomer(appID: appID, appUserID: user) else { return [] }
        return try await store.purchases(customerID: customer.id)
    }

    func requireStripe() throws -> StripeSessions {
        guard let stripe else {
            throw APIError(.unavailable, "Stripe is not configured here; run this against the server (--server) or in Stripe's dashboard.")
        }
        return stripe
    }
}

/// An e-mail of a purchase, as support sees it.
public struct SentEmail: Sendable {
    public let email: QueuedEmail
    public let sentAt: Date?
    public let failedAt: Date?
    public let lastError: String?

    init(_ row: (email: QueuedEmail, sentAt: Date?, failedAt: Date?, lastError: String?)) {
        (email, sentAt, failedAt, lastError) = row
    }

    /// delivered, retrying, failed or queued.
    public var state: String {
        if sentAt != nil { return "delivered" }
        if failedAt != nil { return "failed" }
        return email.attempts > 0 ? "retrying" : "queued"
    }
}

extension AuditEntry {
    func with(detail: String) -> AuditEntry {
        var entry = self
        entry.detail = detail
        return entry
    }
}
