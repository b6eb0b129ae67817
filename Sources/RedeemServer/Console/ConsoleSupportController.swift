import Foundation
import Hummingbird
import RedeemCore
import RedeemQR
import RedeemStore

/// `/console/apps/{app_id}`: the customers (recent ones, filtered, or searched), a customer's page, their export and
/// erasure, and the support actions on their purchases.
struct ConsoleSupportController {
    let service: ConsoleService
    let erasure: ErasureService
    let exports: CustomerExportService
    let offeringOverrides: OfferingOverrideService
    let pages: ConsolePages

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/console", use: home)
        router.get("/console/apps/{app_id}", use: search)
        router.get("/console/apps/{app_id}/customers/{customer_id}", use: customer)
        router.get("/console/apps/{app_id}/customers/{customer_id}/export", use: export)
        router.post("/console/apps/{app_id}/customers/{customer_id}/erase", use: erase)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/link", use: newLink)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/refund", use: refund)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/cancel", use: cancel)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/resume", use: resume)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/revoke", use: revoke)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/transfer", use: transfer)
        router.post("/console/apps/{app_id}/customers/{customer_id}/grants", use: grant)
        router.post("/console/apps/{app_id}/customers/{customer_id}/offering", use: chooseOffering)
        router.post("/console/apps/{app_id}/emails/{email_id}/retry", use: retryEmail)
        router.get("/console/apps/{app_id}/audit", use: audit)
    }

    @Sendable func home(_ request: Request, context: ConsoleContext) async throws -> Response {
        guard let first = context.apps.first else { return pages.page("console-search", context: context, SearchPage(noApps: true)) }
        return ConsolePages.redirect("/console/apps/\(first.id)")
    }

    /// The Customers tab: a search, or else the app's customers by latest activity, filtered by state and environment.
    @Sendable func search(_ request: Request, context: ConsoleContext) async throws -> Response {
        let appID = try context.appID
        let asked = request.uri.queryParameters
        let query = asked["q"].map { String($0).removingPercentEncoding ?? String($0) }?.trimmingCharacters(in: .whitespaces) ?? ""
        if query.isEmpty { return try await recent(request, context: context, appID: appID) }
        let pageNumber = max(1, asked["page"].flatMap { Int($0) } ?? 1)
        let (matches, more) = try await service.support.search(appID: appID, query: query, page: pageNumber)
        var values = SearchPage(
            query: query, searched: true, results: matches.map { ConsolePresenter.match($0, appID: appID) }, noResults: matches.isEmpty)
        if pageNumber > 1 { values.previous = ConsolePresenter.searchURL(appID: appID, query: query, page: pageNumber - 1) }
        if more { values.next = ConsolePresenter.searchURL(appID: appID, query: query, page: pageNumber + 1) }
        return pages.page("console-search", context: context, values)
    }

    func recent(_ request: Request, context: ConsoleContext, appID: String) async throws -> Response {
        let asked = request.uri.queryParameters
        guard let filter = CustomerListFilter(rawValue: asked["status"].map(String.init) ?? "all") else {
            throw APIError.badRequest("Choose one of the filters shown.", field: "status")
        }
        guard let environment = CustomerListFilter.Environment(rawValue: asked["env"].map(String.init) ?? "any") else {
            throw APIError.badRequest("Choose production or sandbox.", field: "env")
        }
        var before: CustomerFeed.Cursor?
        if let text = asked["before"] {
            guard let cursor = CustomerFeed.Cursor(text: String(text)) else {
                throw APIError.badRequest("This page of the list is not known.", field: "before")
            }
            before = cursor
        }
        let list = try await service.support.customers(appID: appID, filter: filter, environment: environment, before: before)
        let now = service.clock.now()
        let seesEmails = context.session.operator.role.may(.seeEmails)
        var values = SearchPage(listing: true)
        values.customers = list.customers.map { CustomerPresenter.row($0, appID: appID, now: now, seesEmails: seesEmails) }
        values.filters = CustomerListFilter.allCases.map {
            SearchPage.Filter(
                label: CustomerPresenter.filterLabels[$0] ?? $0.rawValue,
                url: CustomerPresenter.listURL(appID: appID, filter: $0, environment: environment),
                selected: $0 == filter)
        }
        values.environments = CustomerListFilter.Environment.allCases.map {
            SearchPage.Filter(
                label: CustomerPresenter.environmentLabels[$0] ?? $0.rawValue,
                url: CustomerPresenter.listURL(appID: appID, filter: filter, environment: $0),
                selected: $0 == environment)
        }
        values.filtered = filter != .all || environment != .any
        values.capped = list.capped
        if let next = list.next { values.next = CustomerPresenter.listURL(appID: appID, filter: filter, environment: environment, before: next) }
        if before != nil { values.firstPage = CustomerPresenter.listURL(appID: appID, filter: filter, environment: environment) }
        if list.customers.isEmpty {
            values.emptyList =
                before != nil
                ? "No more customers here."
                : values.filtered
                    ? "No customer matches these filters. Choose “All” to see every customer, or search above by e-mail or ID."
                    : "No customers yet. They appear here once the app asks for CustomerInfo or someone buys through a purchase link: open Products to copy a link and try a sandbox purchase."
        }
        values.notice = ConsolePages.notice(request)
        return pages.page("console-search", context: context, values)
    }

    @Sendable func customer(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await customerPage(request, context: context)
    }

    /// The customer's page; again with the erase form as typed and why it was refused, when `eraseError` says.
    func customerPage(
        _ request: Request, context: ConsoleContext, eraseTyped: String = "", eraseError: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let appID = try context.appID
        var before: CustomerFeed.Cursor?
        if eraseError == nil, let text = request.uri.queryParameters["before"] {
            guard let cursor = CustomerFeed.Cursor(text: String(text)) else {
                throw APIError.badRequest("This page of the history is not known.", field: "before")
            }
            before = cursor
        }
        let view = try await service.person(appID: appID, id: try context.parameters.decoded("customer_id"))
        var values = CustomerPresenter.page(view, appID: appID, seesEmails: context.session.operator.role.may(.seeEmails), before: before)
        values.notice = ConsolePages.notice(request)
        values.grantID = FormID.make()
        values.eraseTyped = eraseTyped
        values.eraseError = eraseError
        return pages.page("console-customer", status: status, context: context, values)
    }

    /// Everything about the customer as a JSON file (owners); the download is audited.
    @Sendable func export(_ request: Request, context: ConsoleContext) async throws -> Response {
        try context.require(.exportCustomer, "export customers' data")
        let (file, customer) = try await exports.export(
            appID: try context.appID, customerID: try context.parameters.decoded("customer_id"), actor: context.session.actor)
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/json; charset=utf-8", .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"customer-\(customer.id).json\"",
            ], body: ResponseBody(byteBuffer: ByteBuffer(bytes: file)))
    }

    /// Erases the customer (owners), as RevenueCat's `DELETE /v1/subscribers/{id}` does, once the app user ID is typed
    /// again to confirm; a mistyped one comes back on the page, as typed, saying why.
    @Sendable func erase(_ request: Request, context: ConsoleContext) async throws -> Response {
        try context.require(.eraseCustomer, "erase customers")
        let appID = try context.appID
        let customer = try await service.customerRecord(appID: appID, id: try context.parameters.decoded("customer_id"))
        let typed = (context.form["confirm_id"] ?? "").trimmingCharacters(in: .whitespaces)
        guard typed == customer.originalAppUserID else {
            let why =
                typed.isEmpty
                ? "Type the app user ID of this customer to confirm the erasure."
                : "That is not the app user ID of this customer: type it exactly as shown above to confirm."
            return try await customerPage(request, context: context, eraseTyped: typed, eraseError: why, status: .unprocessableContent)
        }
        _ = try await erasure.erase(
            appID: appID, appUserID: try AppUserID(validating: customer.originalAppUserID), actor: context.session.actor)
        return ConsolePages.redirect(ConsolePages.noticeURL("/console/apps/\(appID)", .erased))
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
        try await context.act(.cancel, "cancel subscriptions", confirm: "cancellation") { form, appID, session in
            let done = try await service.support.cancelAtPeriodEnd(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), actor: session.actor,
                feedback: try CancellationFeedback.parse(form["feedback"]))
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
            // The page's form ID: a double click grants once.
            _ = try await service.support.grant(
                appID: appID, appUserID: customer.originalAppUserID, entitlementID: form["entitlement_id"] ?? "", duration: duration,
                until: until, requestID: try FormID.submitted(form, field: "grant_id"), actor: session.actor)
            return ConsolePages.customerNotice(appID, customer.id, .granted)
        }
    }

    /// This customer's current offering (RevenueCat's offering override); the empty choice gives back the app's own.
    @Sendable func chooseOffering(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.chooseOffering, "choose offerings", confirm: nil) { form, appID, session in
            let customer = try await service.customerRecord(appID: appID, id: try context.parameters.decoded("customer_id"))
            let chosen = form["offering_id"].flatMap { $0.isEmpty ? nil : $0 }
            try await offeringOverrides.set(
                appID: appID, appUserID: try AppUserID(validating: customer.originalAppUserID), offeringID: chosen, actor: session.actor)
            return ConsolePages.customerNotice(appID, customer.id, .offeringChosen)
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
