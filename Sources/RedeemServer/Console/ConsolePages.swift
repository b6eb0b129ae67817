import Foundation
import Hummingbird
import RedeemCore

/// The console's page renderer: the layout's values, the CSP nonce, and for a signed-in operator the navigation (the app
/// switcher, the app's tabs with the current one marked, what their role may do).
struct ConsolePages: Sendable {
    let templates: Templates
    var renderer: PageRenderer { PageRenderer(templates: templates) }

    /// A signed-in page; the app bar shows when the path names an app.
    /// `showing`: an app the page is about though the path names none (a new app's keys).
    func page(
        _ template: String, status: HTTPResponse.Status = .ok, context: ConsoleContext, showing: App? = nil,
        framing: HTMLPage.Framing = .none, _ model: some PageModel
    ) -> Response {
        let apps = showing.map { shown in context.apps.contains { $0.id == shown.id } ? context.apps : context.apps + [shown] } ?? context.apps
        return render(
            template, status: status, session: context.session, apps: apps, app: showing ?? context.app, path: context.path,
            framing: framing, model)
    }

    func render(
        _ template: String, status: HTTPResponse.Status, session: ConsoleSession?, apps: [App] = [], app: App? = nil, path: String = "",
        framing: HTMLPage.Framing = .none, cookies: [Cookie] = [], _ model: some PageModel
    ) -> Response {
        renderer.response(
            template, model, layout: ConsoleChrome(session: session, apps: apps, app: app, path: path), status: status, framing: framing,
            cookies: cookies)
    }

    /// The app tab a path belongs to: `/console/apps/{id}/products/…` is `products`; the app's own page is `customers`.
    static func tab(path: String, appID: String) -> String {
        let parts = path.split(separator: "/")
        guard parts.count > 3 else { return "customers" }
        switch parts[3] {
        case "purchases", "customers": return "customers"
        case "batches", "custom-codes": return "offers"
        case "preview": return "settings"
        default: return String(parts[3])
        }
    }

    /// Secrets a write made (a key, a signing secret, a new app's keys), on this answer only (`no-store`).
    /// 201 for a secret just made; 200 for a form sent again (`repeated`), which says what it made instead.
    func secretPage(_ secret: ConsoleSecret, context: ConsoleContext, showing: App? = nil) -> Response {
        let values = secret.values.enumerated().map { index, pair in
            SecretPage.Value(label: pair.label, value: pair.value, id: index == 0 ? "secret" : "secret-\(index + 1)")
        }
        var response = page(
            "console-secret", status: secret.repeated ? .ok : .created, context: context, showing: showing,
            SecretPage(title: secret.title, what: secret.what, secrets: values, hint: secret.hint, back: secret.back))
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// A failure inside the console, as a console page: what happened in an operator's words, the navigation, and the
    /// way back (the page the form was on, when it was a console page).
    func failure(
        _ error: APIError, request: Request, session: ConsoleSession, apps: [App], app: App?
    ) -> Response {
        let referer = request.headers[.referer].flatMap { URLComponents(string: $0) }
        let back =
            referer.flatMap { $0.path.hasPrefix("/console") ? $0.path + ($0.percentEncodedQuery.map { "?" + $0 } ?? "") : nil }
            ?? app.map { "/console/apps/\($0.id)" } ?? "/console"
        var response = render(
            "console-error", status: error.status, session: session, apps: apps, app: app, path: request.uri.path,
            ConsoleErrorPage(title: Self.title(for: error.status.code), message: error.message, back: back))
        for field in error.headers { response.headers[field.name] = field.value }
        return response
    }

    static func title(for status: Int) -> String {
        switch status {
        case 403: "Not allowed"
        case 404, 410: "Not found"
        case 409: "Already done, or in the way"
        case 429: "Too many tries"
        case 503: "Not available right now"
        default: "That could not be done"
        }
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// A refusal as the console words it by default: the field, then the reason.
    static func describe(_ error: ValidationError) -> String { "\(error.field.replacingOccurrences(of: "_", with: " ")) \(error.reason)." }

    /// The fixed text of the notice a redirect named, if any.
    static func notice(_ request: Request) -> String? {
        request.uri.queryParameters["notice"].flatMap { ConsoleNotice(rawValue: String($0)) }?.text
    }

    /// A page of the app's console with a notice of what just happened.
    static func noticeURL(_ path: String, _ notice: ConsoleNotice) -> String { path + "?notice=" + notice.rawValue }

    static func customerNotice(_ appID: String, _ customerID: String, _ notice: ConsoleNotice) -> String {
        noticeURL(ConsolePresenter.customerURL(appID: appID, customerID: customerID), notice)
    }
}

/// Secrets made by a write, shown once.
struct ConsoleSecret {
    let title: String
    let what: String
    let values: [(label: String, value: String)]
    let hint: String
    let back: String
    /// The form was sent again: the page says what the first send made, and shows no secret.
    var repeated = false
}
