import Foundation
import RedeemCore

/// `/admin/v1/apps/{app_id}/customers`, purchases, grants and e-mails: the console's support operations, for keys.
extension APIHandlers {
    func searchCustomers(_ input: Operations.SearchCustomers.Input) async throws -> Operations.SearchCustomers.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let query = input.query
        guard let q = query.q else { return try await listCustomers(appID: appID, query) }
        if query.status != nil || query.environment != nil || query.before != nil {
            throw APIError.badRequest("q is not combined with status, environment or before: leave q out to list customers.", field: "q")
        }
        // The generated decoder does not check the document's bounds.
        let page = query.page ?? 1
        guard (1...100_000).contains(page) else { throw APIError.badRequest("page must be between 1 and 100000.", field: "page") }
        let (matches, more) = try await deps.support.search(appID: appID, query: q, page: page)
        let customers = matches.map {
            Components.Schemas.CustomerSearch.CustomersPayloadPayload(
                customerId: $0.customerID, originalAppUserId: $0.originalAppUserID, lastSeen: $0.lastSeen, matched: $0.matched)
        }
        return .ok(.init(body: .json(.init(customers: customers, more: more))))
    }

    /// The customers the filters list, newest activity first (`SupportService.customers`, as the console lists them).
    private func listCustomers(appID: String, _ query: Operations.SearchCustomers.Input.Query) async throws -> Operations.SearchCustomers.Output {
        if query.page != nil { throw APIError.badRequest("page goes with q; a list pages with before (the last page's next).", field: "page") }
        let filter = CustomerListFilter(rawValue: query.status?.rawValue ?? "all") ?? .all
        let environment = CustomerListFilter.Environment(rawValue: query.environment?.rawValue ?? "any") ?? .any
        var before: CustomerFeed.Cursor?
        if let text = query.before {
            guard let cursor = CustomerFeed.Cursor(text: text) else {
                throw APIError.badRequest("before must be the next of an earlier page.", field: "before")
            }
            before = cursor
        }
        let list = try await deps.support.customers(appID: appID, filter: filter, environment: environment, before: before)
        let customers = list.customers.map {
            Components.Schemas.CustomerSearch.CustomersPayloadPayload(
                customerId: $0.customer.id, originalAppUserId: $0.customer.originalAppUserID, lastSeen: $0.customer.lastSeen, email: $0.email)
        }
        let next = list.next?.text
        return .ok(.init(body: .json(.init(customers: customers, more: next != nil, next: next))))
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
        let done = try await deps.support.refund(appID: appID, purchaseID: input.path.purchaseId, actor: try keyActor())
        return done.pending ? .accepted(.init(body: .json(done.purchase))) : .ok(.init(body: .json(done.purchase)))
    }

    func cancelPurchase(_ input: Operations.CancelPurchase.Input) async throws -> Operations.CancelPurchase.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let feedback: CancellationFeedback? = if case .json(let body) = input.body { body.feedback } else { nil }
        let done = try await deps.support.cancelAtPeriodEnd(
            appID: appID, purchaseID: input.path.purchaseId, actor: try keyActor(), feedback: feedback)
        return done.pending ? .accepted(.init(body: .json(done.purchase))) : .ok(.init(body: .json(done.purchase)))
    }

    func resumePurchase(_ input: Operations.ResumePurchase.Input) async throws -> Operations.ResumePurchase.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let done = try await deps.support.resume(appID: appID, purchaseID: input.path.purchaseId, actor: try keyActor())
        return done.pending ? .accepted(.init(body: .json(done.purchase))) : .ok(.init(body: .json(done.purchase)))
    }

    func changePurchasePlan(_ input: Operations.ChangePurchasePlan.Input) async throws -> Operations.ChangePurchasePlan.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send a JSON body.") }
        let done = try await deps.support.changePlan(appID: appID, purchaseID: input.path.purchaseId, to: body.productId, actor: try keyActor())
        return done.pending ? .accepted(.init(body: .json(done.purchase))) : .ok(.init(body: .json(done.purchase)))
    }

    func transferPurchase(_ input: Operations.TransferPurchase.Input) async throws -> Operations.TransferPurchase.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send a JSON body.") }
        let purchase = try await deps.support.transfer(
            appID: appID, purchaseID: input.path.purchaseId, to: body.appUserId, actor: try keyActor())
        return .ok(.init(body: .json(purchase)))
    }

    func listCustomerPurchases(_ input: Operations.ListCustomerPurchases.Input) async throws -> Operations.ListCustomerPurchases.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        _ = try await admin.app(id: appID)
        let purchases = try await deps.support.purchases(appID: appID, appUserID: input.path.appUserId)
        return .ok(.init(body: .json(.init(purchases: purchases))))
    }

    func createGrant(_ input: Operations.CreateGrant.Input) async throws -> Operations.CreateGrant.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let requestID = try RequestID.idempotencyKey(header: input.headers.idempotencyKey)
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send a JSON body.") }
        let purchase = try await deps.support.grant(
            appID: appID, appUserID: input.path.appUserId, entitlementID: body.entitlementId,
            duration: body.duration.flatMap { PromotionalDuration(rawValue: $0.rawValue) }, until: body.until, requestID: requestID,
            actor: try keyActor())
        return .created(.init(body: .json(purchase)))
    }

    func revokeGrant(_ input: Operations.RevokeGrant.Input) async throws -> Operations.RevokeGrant.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let purchase = try await deps.support.revokeGrant(appID: appID, purchaseID: input.path.purchaseId, actor: try keyActor())
        return .ok(.init(body: .json(purchase)))
    }

    func retryEmail(_ input: Operations.RetryEmail.Input) async throws -> Operations.RetryEmail.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let email = try await deps.support.retryEmail(appID: appID, emailID: input.path.emailId, actor: try keyActor())
        return .ok(.init(body: .json(SupportEmailView(retried: email))))
    }

    func getPurchase(_ input: Operations.GetPurchase.Input) async throws -> Operations.GetPurchase.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let detail = try await deps.support.detail(appID: appID, purchaseID: input.path.purchaseId)
        return .ok(.init(body: .json(PurchaseDetailView(detail))))
    }

    /// Who the audit log names for a write made with an API key.
}
