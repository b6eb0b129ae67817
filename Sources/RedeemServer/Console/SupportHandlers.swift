import Foundation
import RedeemCore

/// `/admin/v1/apps/{app_id}/customers` and the purchase actions: the console's support operations for keys.
extension APIHandlers {
    func searchCustomers(_ input: Operations.SearchCustomers.Input) async throws -> Operations.SearchCustomers.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        // The generated decoder does not check the document's bounds.
        let page = input.query.page ?? 1
        guard (1...100_000).contains(page) else { throw APIError.badRequest("page must be between 1 and 100000.", field: "page") }
        let (matches, more) = try await deps.support.search(appID: appID, query: input.query.q, page: page)
        let customers = matches.map {
            Components.Schemas.CustomerSearch.CustomersPayloadPayload(
                customerId: $0.customerID, originalAppUserId: $0.originalAppUserID, lastSeen: $0.lastSeen, matched: $0.matched)
        }
        return .ok(.init(body: .json(.init(customers: customers, more: more))))
    }

    func sendPurchaseLink(_ input: Operations.SendPurchaseLink.Input) async throws -> Operations.SendPurchaseLink.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let sent = try await deps.support.sendNewLink(appID: appID, purchaseID: input.path.purchaseId, actor: try keyActor())
        let body = Components.Schemas.SentLink(
            redemptionUrl: sent.link.customSchemeURL, redemptionHttpsUrl: sent.link.httpsURL, expiresAt: sent.link.expiresAt,
            emailed: sent.emailed)
        return .created(.init(headers: .init(cacheControl: "no-store"), body: .json(body)))
    }

    func refundPurchase(_ input: Operations.RefundPurchase.Input) async throws -> Operations.RefundPurchase.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let refunded = try await deps.support.refund(appID: appID, purchaseID: input.path.purchaseId, actor: try keyActor())
        return .ok(.init(body: .json(refunded)))
    }

    /// Who the audit log names for a write made with an API key.
    func keyActor() throws -> String { "key:\(try context.key?.id ?? "unknown")" }
}
