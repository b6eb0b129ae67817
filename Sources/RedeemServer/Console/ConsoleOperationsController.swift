import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// The console's operations pages for one app: the e-mail outbox, webhooks (endpoints, delivery log, replay, test)
/// and keys. Reading is for any operator where the page says so; every write is an owner's, confirmed where it cannot
/// be undone, and audited through the same services the admin API and the CLI call.
struct ConsoleOperationsController {
    let service: ConsoleService
    let pages: ConsolePages
    let admin: AdminService
    let webhooks: WebhookEndpointService

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/console/apps/{app_id}/emails", use: emails)
        router.post("/console/apps/{app_id}/emails/retry-all", use: retryAllEmails)
        router.get("/console/apps/{app_id}/webhooks", use: webhookPage)
        router.post("/console/apps/{app_id}/webhooks", use: createEndpoint)
        router.post("/console/apps/{app_id}/webhooks/{endpoint_id}/disable", use: disableEndpoint)
        router.post("/console/apps/{app_id}/webhooks/test", use: sendTest)
        router.post("/console/apps/{app_id}/webhooks/deliveries/{delivery_id}/replay", use: replay)
        router.get("/console/apps/{app_id}/keys", use: keysPage)
        router.post("/console/apps/{app_id}/keys", use: createKey)
        router.post("/console/apps/{app_id}/keys/{key_id}/revoke", use: revokeKey)
    }

    // MARK: E-mail outbox

    /// Queued, retrying and failed e-mails with their reason; any operator may look and send again.
    @Sendable func emails(_ request: Request, context: ConsoleContext) async throws -> Response {
        let appID = try context.appID
        let unsent = try await service.unsentEmails(appID: appID)
        let now = service.clock.now()
        let rows = unsent.map { row in
            EmailsPage.Row(
                id: row.email.id, kind: row.email.kind.label, to: row.email.recipient, queued: ConsolePresenter.date(row.email.createdAt),
                attempts: ConsolePresenter.count(row.email.attempts, "attempt"), purchase: row.email.purchaseID,
                state: row.failedAt != nil ? "failed" : row.email.attempts > 0 ? "retrying" : "queued",
                next: row.failedAt == nil ? (row.nextAttemptAt <= now ? "now" : ConsolePresenter.date(row.nextAttemptAt)) : "",
                error: row.lastError)
        }
        let failed = unsent.filter { $0.failedAt != nil }.count
        let values = EmailsPage(
            emails: rows, failedCount: failed, anyFailed: failed > 0, mailOn: service.support.emailQueue.mail != nil,
            notice: ConsolePages.notice(request))
        return pages.page("console-emails", context: context, values)
    }

    @Sendable func retryAllEmails(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.resendEmail, "re-send e-mails", confirm: nil) { _, appID, session in
            _ = try await service.support.retryFailedEmails(appID: appID, actor: session.actor)
            return ConsolePages.noticeURL("/console/apps/\(appID)/emails", .emailRetried)
        }
    }

    // MARK: Webhooks

    @Sendable func webhookPage(_ request: Request, context: ConsoleContext) async throws -> Response {
        let appID = try context.appID
        let endpoints = try await webhooks.endpoints(appID: appID).map { endpoint in
            WebhooksPage.Endpoint(
                id: endpoint.id, url: endpoint.url, created: ConsolePresenter.date(endpoint.createdAt), live: endpoint.disabledAt == nil,
                hasAuthorization: endpoint.authorization != nil)
        }
        let log = try await webhooks.deliveryLog(appID: appID).map(ConsolePresenter.delivery)
        let values = WebhooksPage(
            endpoints: endpoints, deliveries: log, anyLive: endpoints.contains(where: \.live), notice: ConsolePages.notice(request),
            formID: FormID.make())
        return pages.page("console-webhooks", context: context, values)
    }

    /// A new endpoint; its signing secret is shown on this answer only.
    @Sendable func createEndpoint(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await showOnce(context, .changeSettings, "change webhooks") { form, appID, session in
            let authorization = form["authorization"].flatMap { $0.isEmpty ? nil : $0 }
            // The page's form ID: a double click adds one endpoint.
            let endpoint = try await webhooks.acting(as: session.actor).createEndpoint(
                appID: appID, url: form["url"] ?? "", authorization: authorization, requestID: try FormID.submitted(form, field: "form_id"))
            return ConsoleSecret(
                title: "Webhook endpoint added", what: "Signing secret for \(endpoint.url)", values: [("Signing secret", endpoint.signingSecret)],
                hint: "Check each delivery's Redeem-Signature header with it. It is shown only now.", back: "/console/apps/\(appID)/webhooks")
        }
    }

    @Sendable func disableEndpoint(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.changeSettings, "change webhooks", confirm: "change") { _, appID, session in
            try await webhooks.acting(as: session.actor).disableEndpoint(appID: appID, id: try context.parameters.decoded("endpoint_id"))
            return ConsolePages.noticeURL("/console/apps/\(appID)/webhooks", .endpointDisabled)
        }
    }

    @Sendable func sendTest(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.changeSettings, "send test events", confirm: nil) { _, appID, session in
            try await webhooks.acting(as: session.actor).sendTestEvent(appID: appID)
            return ConsolePages.noticeURL("/console/apps/\(appID)/webhooks", .testSent)
        }
    }

    @Sendable func replay(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.changeSettings, "replay deliveries", confirm: nil) { _, appID, session in
            try await webhooks.acting(as: session.actor).replay(appID: appID, deliveryID: try context.parameters.decoded("delivery_id"))
            return ConsolePages.noticeURL("/console/apps/\(appID)/webhooks", .replayed)
        }
    }

    // MARK: Keys

    /// The app's keys with their label and kind; owners only (a key list tells what can reach the app).
    @Sendable func keysPage(_ request: Request, context: ConsoleContext) async throws -> Response {
        try context.require(.manageKeys, "manage keys")
        let appID = try context.appID
        let keys = try await admin.keys(appID: appID).map { key in
            KeysPage.Key(
                id: key.id, kind: Self.kindLabel(key.kind), prefix: key.displayPrefix, created: ConsolePresenter.date(key.createdAt),
                live: key.revokedAt == nil, label: key.label, revoked: key.revokedAt.map(ConsolePresenter.date),
                lastUsed: key.lastUsedAt.map(ConsolePresenter.date) ?? "not yet")
        }
        let values = KeysPage(
            keys: keys, kinds: [APIKeyKind.publicSandbox, .publicProduction, .secret].map { Choice(value: $0.rawValue, label: Self.kindLabel($0)) },
            notice: ConsolePages.notice(request), formID: FormID.make())
        return pages.page("console-keys", context: context, values)
    }

    /// A new key, shown on this answer only. The form's own ID names the key: the same form sent again (a resubmit
    /// after a reload) adds no second key and says so, since the first answer was the key's only showing.
    @Sendable func createKey(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await showOnce(context, .manageKeys, "manage keys") { form, appID, session in
            let requestID = try FormID.submitted(form, field: "form_id")
            let id = requestID?.derivedID(prefix: "key", scope: "key-request:\(appID)")
            let created: CreatedKey
            do {
                created = try await admin.acting(as: session.actor).createKey(appID: appID, kind: form["kind"] ?? "", label: form["label"], id: id)
            } catch let error as StoreError where error.isConflict && id != nil {
                // Only the form's own key, found under its ID, makes this a repeat.
                guard try await admin.keys(appID: appID).contains(where: { $0.id == id }) else { throw error }
                return ConsoleSecret(
                    title: "Key already created", what: "This form already created its key, shown on that answer only.", values: [],
                    hint: "If you did not see it, revoke it on the Keys page and create another.", back: "/console/apps/\(appID)/keys", repeated: true
                )
            }
            let kind = created.key.kind.rawValue.replacingOccurrences(of: "_", with: " ")
            return ConsoleSecret(
                title: "Key created", what: "\(kind) key" + (created.key.label.map { " “\($0)”" } ?? ""), values: [("Key", created.plaintext)],
                hint: "Send it as Authorization: Bearer <key>. It is stored hashed and shown only now.", back: "/console/apps/\(appID)/keys")
        }
    }

    /// An owner's write that makes a secret: the role, the write audited under the operator, and the secret on this
    /// answer only (`no-store`).
    func showOnce(
        _ context: ConsoleContext, _ action: OperatorAction, _ what: String,
        _ write: ([String: String], String, ConsoleSession) async throws -> ConsoleSecret
    ) async throws -> Response {
        try context.require(action, what)
        return pages.secretPage(try await write(context.form, try context.appID, context.session), context: context)
    }

    @Sendable func revokeKey(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.manageKeys, "manage keys", confirm: "revocation") { _, appID, session in
            try await admin.acting(as: session.actor).revokeKey(id: try context.parameters.decoded("key_id"), appID: appID)
            return ConsolePages.noticeURL("/console/apps/\(appID)/keys", .keyRevoked)
        }
    }

    /// A key's kind in words.
    static func kindLabel(_ kind: APIKeyKind) -> String {
        switch kind {
        case .publicSandbox: "Public, sandbox (in the app, for testing)"
        case .publicProduction: "Public, production (in the app)"
        case .secret: "Secret (your servers only)"
        case .admin: "Admin (the whole instance)"
        }
    }
}
