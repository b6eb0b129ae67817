import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `/console/apps/{app_id}/settings`: every setting a page or link depends on. Any operator reads; owners change, through
/// the same `AdminService.updateApp` as the admin API and the CLI (validated there, audited as `app.update`).
struct ConsoleSettingsController {
    let service: ConsoleService
    let pages: ConsolePages
    let admin: AdminService
    let publicURL: URL
    /// Whether Stripe is configured; its absence is a setup warning.
    let paidCheckout: Bool
    /// The app's first steps, shown here even when complete.
    let firstSteps: FirstStepsService

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/console/apps/{app_id}/settings", use: settings)
        router.post("/console/apps/{app_id}/settings", use: save)
        router.get("/console/new-app", use: newAppForm)
        router.post("/console/new-app", use: createApp)
    }

    @Sendable func settings(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await page(app: try context.currentApp, form: nil, error: nil, status: .ok, request: request, context: context)
    }

    @Sendable func save(_ request: Request, context: ConsoleContext) async throws -> Response {
        try context.require(.changeSettings, "change settings")
        let app = try context.currentApp
        do {
            _ = try await admin.acting(as: context.session.actor).updateApp(id: app.id, Self.changes(from: context.form))
            return ConsolePages.redirect(ConsolePages.noticeURL("/console/apps/\(app.id)/settings", .settingsSaved))
        } catch let error as ValidationError {
            return try await page(
                app: app, form: context.form, error: Self.sentence(error), status: .unprocessableContent, request: request, context: context)
        }
    }

    /// An owner's form for a new app: its name and what its pages show first.
    @Sendable func newAppForm(_ request: Request, context: ConsoleContext) async throws -> Response {
        try context.require(.changeSettings, "create apps")
        return pages.page("console-new-app", context: context, NewAppPage(error: nil, formID: FormID.make()))
    }

    /// Creates the app with its three keys (shown once), through the same `AdminService.createApp` as the admin API
    /// and the CLI; then on to its settings. The form's own ID names the app: the same form sent again (a resubmit
    /// after a reload) creates no second app and says so, since the first answer was its keys' only showing.
    @Sendable func createApp(_ request: Request, context: ConsoleContext) async throws -> Response {
        try context.require(.changeSettings, "create apps")
        let form = context.form
        let requestID = try FormID.submitted(form, field: "form_id")
        let id = requestID?.derivedID(prefix: "app", scope: "app-request") ?? App.generateID()
        do {
            let created = try await admin.acting(as: context.session.actor).createApp(try Self.changes(from: form), id: id)
            let keys = created.keys.map { key in (key.record.kind.rawValue.replacingOccurrences(of: "_", with: " ") + " key", key.plaintext) }
            let secret = ConsoleSecret(
                title: "\(created.app.name) created", what: "Its keys, stored hashed and shown only now.", values: keys,
                hint: "The public keys go in the app; the secret key on your servers only. Next: the app's settings.",
                back: "/console/apps/\(created.app.id)/settings")
            return pages.secretPage(secret, context: context, showing: created.app)
        } catch let error as StoreError where error.isConflict && requestID != nil {
            let app = try await admin.app(id: id)
            let repeated = ConsoleSecret(
                title: "\(app.name) already created", what: "This form already created the app; its keys were shown on that answer only.",
                values: [], hint: "If you did not see them, create new keys on its Keys page and revoke the unseen ones.",
                back: "/console/apps/\(app.id)/keys", repeated: true)
            return pages.secretPage(repeated, context: context, showing: app)
        } catch let error as ValidationError {
            let typed = form.filter { ["name", "icon_url", "app_store_url", "play_store_url", "support_email"].contains($0.key) }
            let formID = requestID?.value ?? FormID.make()
            let values = WithFields(model: NewAppPage(error: Self.sentence(error), formID: formID), fields: FormFields(values: typed))
            return pages.page("console-new-app", status: .unprocessableContent, context: context, values)
        }
    }
}
