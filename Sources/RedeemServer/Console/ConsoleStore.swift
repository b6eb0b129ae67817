import Foundation
import RedeemCore
import RedeemStore

/// What the console and the operator commands read and write.
public protocol ConsoleStore: Sendable {
    func createOperator(_ op: Operator, passwordHash: String, audit: AuditEntry) async throws
    func operators() async throws -> [Operator]
    func operatorCredentials(email: String) async throws -> OperatorCredentials?
    func setOperatorDisabled(email: String, _ disabled: Bool, now: Date, audit: AuditEntry) async throws -> Operator
    func setOperatorPassword(email: String, passwordHash: String, now: Date, audit: AuditEntry) async throws
    func createOperatorSession(tokenHash: String, operatorID: String, awaitingCode: Bool, now: Date) async throws
    func completeSecondFactor(tokenHash: String, operatorID: String, step: Int64) async throws -> Bool
    func startTwoFactorEnrolment(operatorID: String, secret: String) async throws
    func enableTwoFactor(operatorID: String, step: Int64, now: Date, audit: AuditEntry) async throws
    func disableTwoFactor(email: String, audit: AuditEntry) async throws
    func operatorSession(tokenHash: String) async throws -> OperatorSessionRecord?
    func touchOperatorSession(tokenHash: String, now: Date) async throws
    func endOperatorSession(tokenHash: String, now: Date) async throws
    func auditLog(appID: String?, includingInstance: Bool, limit: Int) async throws -> [AuditEntry]
    func auditLog(_ query: AuditQuery, limit: Int) async throws -> (entries: [AuditEntry], more: Bool)
    func auditFacets(appID: String) async throws -> (actors: [String], actions: [String])
    func keys(appID: String?) async throws -> [APIKey]

    func apps() async throws -> [App]
    func funnel(appID: String, days: Int, now: Date) async throws -> Funnel
    func entitlements(appID: String) async throws -> [Entitlement]
    func products(appID: String) async throws -> [Product]
    func app(id: String) async throws -> App
    func searchCustomers(appID: String, query: String, limit: Int, offset: Int) async throws -> [CustomerMatch]
    func customer(appID: String, id: String) async throws -> Customer
    func purchases(customerID: String) async throws -> [Purchase]
    func purchase(appID: String, id: String) async throws -> Purchase
    /// Records a request made of Stripe, before it is made (its only local row).
    func recordRequest(_ entry: AuditEntry) async throws
    /// A new link's token, its e-mail and the audit entry, in one transaction; whether the e-mail was queued.
    func issueLink(
        appID: String, purchaseID: String, tokenHash: String, now: Date, expiresAt: Date, email: QueuedEmail?, quietPeriod: TimeInterval,
        audit: AuditEntry
    ) async throws -> Bool
    func refundPurchase(appID: String, id: String, now: Date, audit: AuditEntry) async throws -> Purchase
    func redemptionAttempts(appID: String, purchaseID: String) async throws -> [RedemptionAttempt]
    func customerInfo(appID: String, appUserID: AppUserID, now: Date) async throws -> CustomerInfo
    func observedCustomerInfo(appID: String, appUserID: AppUserID, now: Date) async throws -> CustomerInfo
    func findCustomer(appID: String, appUserID: AppUserID) async throws -> Customer?
    /// The customer's subscriber attributes, by key, with whether the app's secret key set each.
    func attributeRecords(customerID: String) async throws -> [SubscriberAttributeRecord]

    func grantPromotional(appID: String, appUserID: AppUserID, grant: PromotionalGrant, now: Date, audit: AuditEntry) async throws -> Purchase
    func revokeGrant(appID: String, purchaseID: String, now: Date, audit: AuditEntry) async throws -> Purchase
    func transferPurchase(appID: String, purchaseID: String, to appUserID: AppUserID, now: Date, audit: AuditEntry) async throws -> Purchase
    func setRenewal(appID: String, purchaseID: String, renews: Bool, now: Date, audit: AuditEntry) async throws -> Purchase
    func paymentReference(appID: String, purchaseID: String) async throws -> String?
    func retryEmail(appID: String, id: String, now: Date, audit: AuditEntry) async throws -> QueuedEmail
    func retryFailedEmails(appID: String, now: Date, audit: AuditEntry) async throws -> Int
    func unsentEmails(appID: String, limit: Int) async throws -> [UnsentEmail]
    func emails(purchaseID: String) async throws -> [(email: QueuedEmail, sentAt: Date?, failedAt: Date?, lastError: String?)]
    func webhookDeliveries(appID: String, transactionID: String, limit: Int) async throws -> [WebhookDelivery]
    func redemptionLinks(appID: String, purchaseID: String) async throws -> [IssuedLink]
}
