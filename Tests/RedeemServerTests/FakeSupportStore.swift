import Foundation
import RedeemCore
import RedeemStore

@testable import RedeemServer

/// `SupportStore` in memory: a few apps, customers and purchases to read, and every write the service makes kept in
/// order with its audit entry, so a test sees what `SupportService` asked for rather than what a database did with it.
actor FakeSupportStore: SupportStore {
    /// One write the service asked for.
    enum Write: Equatable {
        case issueLink(purchaseID: String, tokenHash: String?, expiresAt: Date, email: QueuedEmail?, quietPeriod: TimeInterval)
        case refund(purchaseID: String)
        case setRenewal(purchaseID: String, renews: Bool)
        case changePlan(purchaseID: String, productID: String)
        case recordRequest
        case grant(appUserID: String, productID: String, expiresDate: Date?)
        case revokeGrant(purchaseID: String)
        case revokeGrants(appUserID: String, entitlementID: String)
        case transfer(purchaseID: String, to: String)
        case retryEmail(emailID: String)
        case retryFailedEmails
    }

    private(set) var writes: [(write: Write, audit: AuditEntry)] = []
    private var appsByID: [String: App] = [:]
    private var customers: [Customer] = []
    private var purchasesByID: [String: Purchase] = [:]
    private var paymentReferences: [String: String] = [:]
    private var emailsByID: [String: QueuedEmail] = [:]
    private var failedEmails = 0

    func add(_ app: App) { appsByID[app.id] = app }
    func add(_ customer: Customer) { customers.append(customer) }
    func add(_ purchase: Purchase, paymentReference: String? = nil) {
        purchasesByID[purchase.id] = purchase
        paymentReferences[purchase.id] = paymentReference
    }
    func add(_ email: QueuedEmail, failed: Bool) {
        emailsByID[email.id] = email
        if failed { failedEmails += 1 }
    }

    private func record(_ write: Write, _ audit: AuditEntry) { writes.append((write, audit)) }

    // MARK: Reads

    func app(id: String) async throws -> App {
        guard let app = appsByID[id] else { throw StoreError.notFound("app '\(id)'") }
        return app
    }

    func searchCustomers(appID: String, query: String, limit: Int, offset: Int) async throws -> [CustomerMatch] { [] }

    func recentCustomers(appID: String, before: (Date, String)?, limit: Int) async throws -> [CustomerListing] { [] }

    func findCustomer(appID: String, appUserID: AppUserID) async throws -> Customer? {
        customers.first { $0.appID == appID && ($0.originalAppUserID == appUserID.rawValue || $0.aliases.contains(appUserID.rawValue)) }
    }

    func purchases(customerID: String) async throws -> [Purchase] {
        purchasesByID.values.filter { $0.customerID == customerID }.sorted { ($0.purchaseDate, $0.id) < ($1.purchaseDate, $1.id) }
    }

    func purchase(appID: String, id: String) async throws -> Purchase {
        guard let purchase = purchasesByID[id], purchase.appID == appID else { throw StoreError.notFound("purchase '\(id)'") }
        return purchase
    }

    func paymentReference(appID: String, purchaseID: String) async throws -> String? { paymentReferences[purchaseID] }

    func redemptionLinks(appID: String, purchaseID: String) async throws -> [IssuedLink] { [] }
    func redemptionAttempts(appID: String, purchaseID: String) async throws -> [RedemptionAttempt] { [] }
    func emails(purchaseID: String) async throws -> [(email: QueuedEmail, sentAt: Date?, failedAt: Date?, lastError: String?)] { [] }
    func webhookDeliveries(appID: String, transactionID: String, limit: Int) async throws -> [WebhookDelivery] { [] }

    // MARK: Writes

    func issueLink(
        appID: String, purchaseID: String, tokenHash: String?, now: Date, expiresAt: Date, email: QueuedEmail?, quietPeriod: TimeInterval,
        audit: AuditEntry
    ) async throws -> Bool {
        // As the SQL store: neither a token nor an e-mail writes nothing.
        guard tokenHash != nil || email != nil else { return false }
        record(.issueLink(purchaseID: purchaseID, tokenHash: tokenHash, expiresAt: expiresAt, email: email, quietPeriod: quietPeriod), audit)
        return email != nil
    }

    func refundPurchase(appID: String, id: String, now: Date, audit: AuditEntry, mail: LifecycleMail?) async throws -> Purchase {
        var purchase = try await purchase(appID: appID, id: id)
        purchase.refundedAt = now
        purchasesByID[id] = purchase
        record(.refund(purchaseID: id), audit)
        return purchase
    }

    func setRenewal(
        appID: String, purchaseID: String, renews: Bool, feedback: CancellationFeedback?, now: Date, audit: AuditEntry, mail: LifecycleMail?
    ) async throws -> Purchase {
        var purchase = try await purchase(appID: appID, id: purchaseID)
        purchase.unsubscribeDetectedAt = renews ? nil : now
        purchase.cancellationFeedback = renews ? nil : feedback
        purchasesByID[purchaseID] = purchase
        record(.setRenewal(purchaseID: purchaseID, renews: renews), audit)
        return purchase
    }

    func changePlan(
        appID: String, purchaseID: String, to option: PlanChange.Option, now: Date, audit: AuditEntry, mail: LifecycleMail?
    ) async throws -> Purchase {
        var purchase = try await purchase(appID: appID, id: purchaseID)
        purchase.productID = option.product.id
        purchasesByID[purchaseID] = purchase
        record(.changePlan(purchaseID: purchaseID, productID: option.product.id), audit)
        return purchase
    }

    func schedulePlan(
        appID: String, purchaseID: String, plan: ScheduledPlan?, now: Date, audit: AuditEntry?, mail: LifecycleMail?
    ) async throws -> Purchase {
        var purchase = try await purchase(appID: appID, id: purchaseID)
        purchase.scheduledPlan = plan
        purchasesByID[purchaseID] = purchase
        if let audit { record(.changePlan(purchaseID: purchaseID, productID: plan?.productID ?? purchase.productID), audit) }
        return purchase
    }

    // No catalog: plan changes are tested against the real stores (`PlanChangeSupportTests`).
    func products(appID: String) async throws -> [Product] { [] }
    func productBilling(appID: String, productID: String) async throws -> ProductBilling { ProductBilling(prices: []) }
    func setStripePriceID(_ stripePriceID: String, for price: ProductPrice) async throws {}

    func recordRequest(_ entry: AuditEntry) async throws { record(.recordRequest, entry) }

    func grantPromotional(appID: String, appUserID: AppUserID, grant: PromotionalGrant, now: Date, audit: AuditEntry) async throws -> Purchase {
        let purchase = Purchase(
            id: "pur_grant_\(writes.count)", appID: appID, customerID: "cus_\(appUserID.rawValue)", productID: grant.productID, store: .promotional,
            isSandbox: false, purchaseDate: now, originalPurchaseDate: now, expiresDate: grant.expiresDate, storeTransactionID: "promo",
            price: nil, email: nil, createdAt: now)
        purchasesByID[purchase.id] = purchase
        record(.grant(appUserID: appUserID.rawValue, productID: grant.productID, expiresDate: grant.expiresDate), audit)
        return purchase
    }

    func revokeGrant(appID: String, purchaseID: String, now: Date, audit: AuditEntry) async throws -> Purchase {
        var purchase = try await purchase(appID: appID, id: purchaseID)
        purchase.expiresDate = now
        purchasesByID[purchaseID] = purchase
        record(.revokeGrant(purchaseID: purchaseID), audit)
        return purchase
    }

    /// Which grants are live is the store's to decide (its tests: `SupportWritesAtOnceTests`); only the request is kept.
    func revokeGrants(appID: String, appUserID: AppUserID, entitlementID: String, now: Date, audit: AuditEntry) async throws -> [Purchase] {
        record(.revokeGrants(appUserID: appUserID.rawValue, entitlementID: entitlementID), audit)
        return []
    }

    func transferPurchase(appID: String, purchaseID: String, to appUserID: AppUserID, now: Date, audit: AuditEntry) async throws -> Purchase {
        let purchase = try await purchase(appID: appID, id: purchaseID)
        record(.transfer(purchaseID: purchaseID, to: appUserID.rawValue), audit)
        return purchase
    }

    func retryEmail(appID: String, id: String, now: Date, audit: AuditEntry) async throws -> QueuedEmail {
        guard let email = emailsByID[id], email.appID == appID else { throw StoreError.notFound("e-mail '\(id)'") }
        record(.retryEmail(emailID: id), audit)
        return email
    }

    func retryFailedEmails(appID: String, now: Date, audit: AuditEntry) async throws -> Int {
        record(.retryFailedEmails, audit)
        return failedEmails
    }
}

/// The stores behind the link issuer and the e-mail queue `SupportService` is built with. The service only makes links
/// and e-mails (storing them itself, through `SupportStore.issueLink`, with the audit entry), so nothing should reach
/// these: each call is kept, for a test to expect none.
actor UntouchedStores: RedemptionLinkStore, EmailStore {
    private(set) var calls: [String] = []

    func app(id: String) async throws -> App { try touched() }
    func issueRedemptionToken(appID: String, purchaseID: String, tokenHash: String, now: Date, expiresAt: Date) async throws { try touch() }
    func issueRedemptionTokenOnce(
        appID: String, purchaseID: String, tokenHash: String, issuedFor: String, now: Date, expiresAt: Date
    ) async throws -> Bool { try touched() }
    func product(appID: String, id: String) async throws -> Product { try touched() }
    func purchase(appID: String, id: String) async throws -> Purchase { try touched() }
    func productBilling(appID: String, productID: String) async throws -> ProductBilling { try touched() }
    func enqueueEmail(_ email: QueuedEmail, quietPeriod: TimeInterval) async throws -> Bool { try touched() }
    func claimDueEmails(now: Date, lease: TimeInterval, limit: Int) async throws -> [QueuedEmail] { try touched() }
    func markEmailSent(id: String, at date: Date) async throws { try touch() }
    func markEmailFailed(id: String, error: String, retryAt: Date?, at date: Date) async throws { try touch() }
    func insertPortalSignInToken(tokenHash: String, appID: String, email: String, now: Date, expiresAt: Date) async throws { try touch() }

    private func touch(_ function: String = #function) throws {
        calls.append(function)
        throw StoreError.conflict("SupportService reached \(function) of a store it should not use")
    }

    private func touched<T>(_ function: String = #function) throws -> T {
        try touch(function)
        fatalError("unreachable")
    }
}
