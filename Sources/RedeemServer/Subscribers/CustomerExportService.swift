import Foundation
import RedeemCore
import RedeemStore

/// A customer's data as one JSON file (`CustomerExport`, a data-access request), for the console's owners, the admin
/// API and `redeem customers export`. Every export is in the audit log: a read that hands the data over is recorded
/// like a write (who, whom; never an address).
public struct CustomerExportService: Sendable {
    let store: any CustomerExportStore
    let clock: any RedeemClock

    /// The file and the customer it is about.
    func export(appID: String, customerID: String, actor: String) async throws -> (file: Data, customer: Customer) {
        let facts = try await store.customerFacts(appID: appID, customerID: customerID)
        let now = clock.now()
        let file = try CustomerExport(facts, appID: appID, at: now).json()
        try await store.recordRequest(
            AuditEntry(at: now, actor: actor, action: "customer.export", objectType: "customer", objectID: facts.customer.id, appID: appID))
        return (file, facts.customer)
    }

    /// The file of the customer any of whose app user IDs is `appUserID`; `StoreError.notFound` when none is.
    public func export(appID: String, appUserID: AppUserID, actor: String) async throws -> Data {
        guard let customer = try await store.findCustomer(appID: appID, appUserID: appUserID) else {
            throw StoreError.notFound("customer '\(appUserID.rawValue)'")
        }
        return try await export(appID: appID, customerID: customer.id, actor: actor).file
    }
}

/// What an export reads, and where it is recorded.
protocol CustomerExportStore: Sendable {
    func findCustomer(appID: String, appUserID: AppUserID) async throws -> Customer?
    func customerFacts(appID: String, customerID: String) async throws -> CustomerFacts
    func recordRequest(_ entry: AuditEntry) async throws
}
