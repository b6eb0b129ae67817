import Foundation
import Hummingbird
import RedeemCore
import RedeemQR
import RedeemStore

/// `/console/apps/{app_id}`: finding a customer, their page, and the support actions on their purchases.
struct ConsoleSupportController {
    let service: ConsoleService
    let pages: ConsolePages

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/console", use: home)
        router.get("/console/apps/{app_id}", use: search)
        router.get("/console/apps/{app_id}/customers/{customer_id}", use: customer)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/link", use: newLink)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/refund", use: refund)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/cancel", use: cancel)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/resume", use: resume)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/revoke", use: revoke)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/transfer", use: transfer)
        router.post("/console/apps/{app_id}/customers/{customer_id}/grants", use: grant)
        router.post("/console/apps/{app_id}/emails/{email_id}/retry", use: retryEmail)
        router.get("/console/apps/{app_id}/audit", use: audit)
    }

    @Sendable func home(_ request: Request, context: ConsoleContext) async throws -> Response {
        guard let first = context.apps.first else { return pages.page("console-search", context: context, SearchPage(noApps: true)) }
        return ConsolePages.redirect("/console/apps/\(first.id)")
    }

    @Sendable func search(_ request: Request, context: ConsoleContext) async throws -> Response {
        let appID = try context.appID
        let query = request.uri.queryParameters["q"].map { String($0).removingPercentEncoding ?? String($0) } ?? ""
        let pageNumber = max(1, request.uri.queryParameters["page"].flatMap { Int($0) } ?? 1)
        let (matches, more) = query.isEmpty ? ([], false) : try await service.support.search(appID: appID, query: query, page: pageNumber)
        var values = SearchPage(
            query: query, searched: !query.isEmpty, results: matches.map { ConsolePresenter.match($0, appID: appID) },
            noResults: !query.isEmpty && matches.isEmpty)
        if pageNumber > 1 { values.previous = ConsolePresenter.searchURL(appID: appID, query: query, page: pageNumber - 1) }
        if more { values.next = ConsolePresenter.searchURL(appID: appID, query: query, page: pageNumber + 1) }
        return pages.page("console-search", context: context, values)
    }

    @Sendable func customer(_ request: Request, context: ConsoleContext) async throws -> Response {
        let view = try await service.customer(appID: try context.appID, id: try context.parameters.decoded("customer_id"))
        var values = ConsolePresenter.customer(view, now: service.clock.now())
        values.notice = ConsolePages.notice(request)
        return pages.page("console-customer", context: context, values)
    }

    /// A new link for a purchase, one token either way: e-mailed to the purchase's address (`delivery=email`; the e-mail
    /// mints it), or shown once here with its QR code. Any role may.
    @Sendable func newLink(_ request: Request, context: ConsoleContext) async throws -> Response {
        let appID = try context.appID
        try context.require(.sendLink, "send links")
        let purchaseID = try context.parameters.decoded("purchase_id")
        let back = context.form["customer_id"].map { ConsolePresenter.customerURL(appID: appID, customerID: $0) } ?? "/console/apps/\(appID)"
        if context.form["delivery"] == "email" {
            _ = try await service.support.emailNewLink(appID: appID, purchaseID: purchaseID, actor: context.session.actor)
            return ConsolePages.redirect(ConsolePages.noticeURL(back, .linkEmailed))
        }
        let sent = try await service.support.sendNewLink(appID: appID, purchaseID: purchaseID, actor: context.session.actor, emailing: false)
        let values = NewLinkPage(
            purchaseID: sent.purchase.id, httpsURL: sent.link.httpsURL, schemeURL: sent.link.customSchemeURL,
            expires: ConsolePresenter.date(sent.link.expiresAt), emailed: sent.emailed, back: back,
            qrSVG: try QRCode(encoding: sent.link.httpsURL).svg(label: "QR code of the new link"), email: sent.purchase.email)
        return pages.page("console-new-link", context: context, values)
    }

    /// Refunds a purchase (owners), once the form's box confirming it is ticked: a sandbox one at once, a Stripe one
    /// through Stripe. Then back to the customer, saying which.
    @Sendable func refund(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.refund, "refund purchases", confirm: "refund") { _, appID, session in
            let done = try await service.support.refund(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), actor: session.actor)
            return ConsolePages.customerNotice(appID, done.purchase.customerID, done.pending ? .refundRequested : .refunded)
        }
    }

    /// Stops a subscription renewing at the end of its period (owners).
    @Sendable func cancel(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.cancel, "cancel subscriptions", confirm: "cancellation") { _, appID, session in
            let done = try await service.support.cancelAtPeriodEnd(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), actor: session.actor)
            return ConsolePages.customerNotice(appID, done.purchase.customerID, done.pending ? .cancelRequested : .cancelled)
        }
    }

    /// Lets a subscription set to end with its period renew again (owners, as cancelling).
    @Sendable func resume(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.cancel, "resume subscriptions", confirm: nil) { _, appID, session in
            let done = try await service.support.resume(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), actor: session.actor)
            return ConsolePages.customerNotice(appID, done.purchase.customerID, done.pending ? .resumeRequested : .resumed)
        }
    }

    /// Ends a granted entitlement now (owners).
    @Sendable func revoke(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.revoke, "revoke grants", confirm: "revocation") { _, appID, session in
            let purchase = try await service.support.revokeGrant(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), actor: session.actor)
            return ConsolePages.customerNotice(appID, purchase.customerID, .revoked)
        }
    }

    /// Moves a purchase to another app user ID (owners); the page then shows the purchase's new owner.
    @Sendable func transfer(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.transfer, "transfer purchases", confirm: "transfer") { form, appID, session in
            let purchase = try await service.support.transfer(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), to: form["app_user_id"] ?? "",
                actor: session.actor)
            return ConsolePages.customerNotice(appID, purchase.customerID, .transferred)
        }
    }

    /// Grants an entitlement for a preset duration or until a date (any role).
    @Sendable func grant(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.grant, "grant entitlements", confirm: nil) { form, appID, session in
            let customer = try await service.customerRecord(appID: appID, id: try context.parameters.decoded("customer_id"))
            let choice = form["duration"] ?? ""
            var duration: PromotionalDuration? = nil
            var until: Date? = nil
            if choice == "until" {
                // A date field: the grant ends at the start of that day, UTC.
                guard let date = ISODate.parse((form["until"] ?? "") + "T00:00:00Z") else {
                    throw APIError.badRequest("Give the end date as YYYY-MM-DD.", field: "until")
                }
                until = date
            } else {
                guard let preset = PromotionalDuration(rawValue: choice) else { throw APIError.badRequest("Choose a duration.", field: "duration") }
                duration = preset
            }
            _ = try await service.support.grant(
                appID: appID, appUserID: customer.originalAppUserID, entitlementID: form["entitlement_id"] ?? "", duration: duration,
                until: until, actor: session.actor)
            return ConsolePages.customerNotice(appID, customer.id, .granted)
        }
    }

    /// Sends a failed or retrying e-mail again now (any role).
    @Sendable func retryEmail(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.resendEmail, "re-send e-mails", confirm: nil) { form, appID, session in
            let email = try await service.support.retryEmail(appID: appID, emailID: try context.parameters.decoded("email_id"), actor: session.actor)
            if form["back"] == "outbox" { return ConsolePages.noticeURL("/console/apps/\(appID)/emails", .emailRetried) }
            let purchase = try await service.purchase(appID: appID, id: email.purchaseID)
            return ConsolePages.customerNotice(appID, purchase.customerID, .emailRetried)
        }
    }

    /// The audit log of the app's objects and of the instance (operators), newest first, 50 a page, filtered by who, what
    /// and the object. Owners only.
    @Sendable func audit(_ request: Request, context: ConsoleContext) async throws -> Response {
        try context.require(.changeSettings, "read the audit log")
        let appID = try context.appID
        let asked = request.uri.queryParameters
        func field(_ name: String) -> String? {
            asked[Substring(name)].map { String($0).removingPercentEncoding ?? String($0) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        var query = AuditQuery(appID: appID, actor: field("actor"), action: field("action"), object: field("object"))
        if let cursor = field("before") {
            guard let parsed = AuditPresenter.cursor(cursor) else { throw APIError.badRequest("This page of the log is not known.", field: "before") }
            query.before = parsed
        }
        let page = try await service.auditPage(query)
        return pages.page("console-audit", context: context, AuditPresenter.values(page, query: query))
    }
}
