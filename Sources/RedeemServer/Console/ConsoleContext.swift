import Hummingbird
import RedeemCore
import RedeemStore

/// What `ConsoleSessionMiddleware` found for a signed-in console request, carried on the parent context to the child.
struct ConsoleRequest: Sendable {
    let session: ConsoleSession
    let form: [String: String]
    let apps: [App]
    let app: App?
    let path: String
}

/// A request to the console's signed-in pages (hummingbird-examples' auth idiom): the operator's session is never
/// optional here, a POST's form has had its CSRF token checked, and the navigation's apps are loaded once.
struct ConsoleContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let session: ConsoleSession
    /// A POST's fields (empty on GET), its `csrf` already checked.
    let form: [String: String]
    /// Every app, for the app switcher.
    let apps: [App]
    /// The app the path names (`{app_id}`), found among `apps`; nil on pages outside an app.
    let app: App?
    let remoteIP: String?
    /// The request's path, for the current tab.
    let path: String

    init(context: AppRequestContext) throws {
        // The middleware answers every request without a session before the context is made.
        guard let console = context.console else { throw APIError.forbidden("Sign in to the console first.") }
        self.coreContext = context.coreContext
        self.session = console.session
        self.form = console.form
        self.apps = console.apps
        self.app = console.app
        self.remoteIP = context.remoteIP
        self.path = console.path
    }

    /// The app the path names; every route under `/console/apps/{app_id}` has one.
    var currentApp: App {
        get throws {
            guard let app else { throw APIError.notFound("This page belongs to an app; open it from the app's tabs.") }
            return app
        }
    }

    var appID: String { get throws { try currentApp.id } }

    /// Checks that the operator's role may do `action`; `what` names it in the refusal.
    func require(_ action: OperatorAction, _ what: String) throws {
        guard session.operator.role.may(action) else {
            throw APIError.forbidden("Your role (\(session.operator.role.rawValue)) may not \(what). An owner can do it, or change your role.")
        }
    }

    /// One console action: the role, the confirming box when `confirm` names one, then `body` (given the form, the app's ID
    /// and the session), and a redirect to where it says (a page with a notice of what happened).
    func act(
        _ action: OperatorAction, _ what: String, confirm: String?, _ body: ([String: String], String, ConsoleSession) async throws -> String
    ) async throws -> Response {
        try require(action, what)
        if let confirm, form["confirm"] != "yes" { throw APIError.badRequest("Tick the box to confirm the \(confirm).", field: "confirm") }
        return ConsolePages.redirect(try await body(form, try appID, session))
    }

    /// An owner's write from a form on the app's page `page` (`products`, `offers`): on success a redirect back with the
    /// notice `body` returns; a refused value or a conflict comes back on the page (`render`, given the form as typed so
    /// it can show it again), naming what is wrong (`describe`).
    func ownerWrite(
        _ what: String, page: String, describe: (ValidationError) -> String = ConsolePages.describe,
        render: (String, String, HTTPResponse.Status, ConsoleSession, [String: String]) async throws -> Response,
        body: ([String: String], String, ConsoleSession) async throws -> ConsoleNotice
    ) async throws -> Response {
        try await ownerWrite(what, describe: describe, render: render) { form, appID, session in
            ConsolePages.noticeURL("/console/apps/\(appID)/\(page)", try await body(form, appID, session))
        }
    }

    /// As above, with `body` saying where to go next.
    func ownerWrite(
        _ what: String, describe: (ValidationError) -> String = ConsolePages.describe,
        render: (String, String, HTTPResponse.Status, ConsoleSession, [String: String]) async throws -> Response,
        leadingTo body: ([String: String], String, ConsoleSession) async throws -> String
    ) async throws -> Response {
        try require(.changeSettings, what)
        let appID = try appID
        do {
            return ConsolePages.redirect(try await body(form, appID, session))
        } catch let error as ValidationError {
            return try await render(appID, describe(error), .unprocessableContent, session, form)
        } catch let error as StoreError where error.isConflict {
            return try await render(appID, error.description + ".", .conflict, session, form)
        }
    }
}
