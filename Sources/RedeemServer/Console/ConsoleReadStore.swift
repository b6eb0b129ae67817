import Foundation
import RedeemCore
import RedeemStore

/// What `ConsoleService` reads for the console's pages: the app switcher, the audit log, the funnel, the outbox and
/// the customer page. It writes nothing; the support actions go through `SupportService` and its `SupportStore`.
protocol ConsoleReadStore: Sendable {
    func apps() async throws -> [App]
    func auditLog(_ query: AuditQuery, limit: Int) async throws -> (entries: [AuditEntry], more: Bool)
    func auditFacets(appID: String) async throws -> (actors: [String], actions: [String])
    /// An app's keys, or every key for nil: the audit log names its key actors by them.
    func keys(appID: String?) async throws -> [APIKey]
    func funnel(appID: String, days: Int, now: Date) async throws -> Funnel
    func unsentEmails(appID: String, limit: Int) async throws -> [UnsentEmail]

    func customer(appID: String, id: String) async throws -> Customer
    /// The CustomerInfo as an operator looks at it: looking is not a sighting (`last_seen` stays).
    func observedCustomerInfo(appID: String, appUserID: AppUserID, now: Date) async throws -> CustomerInfo
    /// The customer's subscriber attributes, by key, with whether the app's secret key set each.
    func attributeRecords(customerID: String) async throws -> [SubscriberAttributeRecord]
    func purchases(customerID: String) async throws -> [Purchase]
    func purchase(appID: String, id: String) async throws -> Purchase
    func entitlements(appID: String) async throws -> [Entitlement]
    func offerings(appID: String) async throws -> [Offering]
    /// Everything stored about one customer (the customer page, its history, the export).
    func customerFacts(appID: String, customerID: String) async throws -> CustomerFacts
    func products(appID: String) async throws -> [Product]
}
