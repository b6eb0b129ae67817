import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `/console/apps/{app_id}`: the customers (recent ones, filtered, or searched), a customer's page, their export and
/// erasure. The support actions on their purchases are `ConsolePurchaseActionsController`'s.
struct ConsoleSupportController {
    let service: ConsoleService
    let erasure: ErasureService
    let exports: CustomerExportService
    let pages: ConsolePages

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/console", use: home)
        router.get("/console/apps/{app_id}", use: search)
        router.get("/console/apps/{app_id}/customers/{customer_id}", use: customer)
        router.get("/console/apps/{app_id}/customers/{customer_id}/export", use: export)
        router.post("/console/apps/{app_id}/customers/{customer_id}/erase", use: erase)
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

}
