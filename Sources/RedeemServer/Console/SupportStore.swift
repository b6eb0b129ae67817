import Foundation
import RedeemCore
import RedeemStore

/// What `SupportService` reads and writes. Each write takes its audit entry and commits it with the change; a change
/// Stripe makes is only asked for here (`recordRequest`) and applied when Stripe's webhook arrives.
protocol SupportStore: Sendable {
    func app(id: String) async throws -> App
    /// Customers one query names by exact value (an app user ID or alias, an e-mail, a purchase, transaction or Stripe ID).
    func searchCustomers(appID: String, query: String, limit: Int, offset: Int) async throws -> [CustomerMatch]
    /// Customers by latest activity (`last_seen`, then ID), newest first, after `before`, with their purchases.
    func recentCustomers(appID: String, before: (Date, String)?, limit: Int) async throws -> [CustomerListing]
    func findCustomer(appID: String, appUserID: AppUserID) async throws -> Customer?
    func purchases(customerID: String) async throws -> [Purchase]
    func purchase(appID: String, id: String) async throws -> Purchase

    /// A new link's token (nil: the e-mail mints the only one when it is sent), its e-mail and the audit entry, in one
    /// transaction; whether the e-mail was queued. Nothing is written when there is neither.
    func issueLink(
        appID: String, purchaseID: String, tokenHash: String?, now: Date, expiresAt: Date, email: QueuedEmail?, quietPeriod: TimeInterval,
        audit: AuditEntry
    ) async throws -> Bool
    /// `mail`: the buyer's notice is queued with the change (nil: none).
    func refundPurchase(appID: String, id: String, now: Date, audit: AuditEntry, mail: LifecycleMail?) async throws -> Purchase
    func setRenewal(
        appID: String, purchaseID: String, renews: Bool, feedback: CancellationFeedback?, now: Date, audit: AuditEntry, mail: LifecycleMail?
    ) async throws -> Purchase
    /// A sandbox subscription's plan switched here, with its event and the audit entry.
    func changePlan(
        appID: String, purchaseID: String, to option: PlanChange.Option, now: Date, audit: AuditEntry, mail: LifecycleMail?
    ) async throws -> Purchase
    /// Records (or, nil, drops) the switch that waits for the period's end, with the audit entry (nil: the Stripe request
    /// it follows was audited when made) and, with `mail`, the buyer's notice.
    func schedulePlan(
        appID: String, purchaseID: String, plan: ScheduledPlan?, now: Date, audit: AuditEntry?, mail: LifecycleMail?
    ) async throws -> Purchase
    /// The catalog a plan change chooses from, and records the Stripe Price made for a price.
    func products(appID: String) async throws -> [Product]
    func productBilling(appID: String, productID: String) async throws -> ProductBilling
    func setStripePriceID(_ stripePriceID: String, for price: ProductPrice) async throws
    /// The Stripe payment a refund refunds, once Stripe has reported one.
    func paymentReference(appID: String, purchaseID: String) async throws -> String?
    /// Records a request made of Stripe, before it is made (its only local row).
    func recordRequest(_ entry: AuditEntry) async throws
    func grantPromotional(appID: String, appUserID: AppUserID, grant: PromotionalGrant, now: Date, audit: AuditEntry) async throws -> Purchase
    func revokeGrant(appID: String, purchaseID: String, now: Date, audit: AuditEntry) async throws -> Purchase
    /// Every live grant of the entitlement for the user, in one transaction; each audited as `audit` with its ID.
    func revokeGrants(appID: String, appUserID: AppUserID, entitlementID: String, now: Date, audit: AuditEntry) async throws -> [Purchase]
    func transferPurchase(appID: String, purchaseID: String, to appUserID: AppUserID, now: Date, audit: AuditEntry) async throws -> Purchase
    func retryEmail(appID: String, id: String, now: Date, audit: AuditEntry) async throws -> QueuedEmail
    func retryFailedEmails(appID: String, now: Date, audit: AuditEntry) async throws -> Int

    // A purchase's timelines, for its detail.
    func redemptionLinks(appID: String, purchaseID: String) async throws -> [IssuedLink]
    func redemptionAttempts(appID: String, purchaseID: String) async throws -> [RedemptionAttempt]
    func emails(purchaseID: String) async throws -> [(email: QueuedEmail, sentAt: Date?, failedAt: Date?, lastError: String?)]
    func webhookDeliveries(appID: String, transactionID: String, limit: Int) async throws -> [WebhookDelivery]
}
