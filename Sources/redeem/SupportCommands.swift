import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer
import RedeemStore

/// The support actions on purchases, grants and e-mails: the console's buttons, for a terminal.
extension Purchases {
    struct SentLink: Codable {
        let redemptionURL: String
        let redemptionHTTPSURL: String
        let expiresAt: Date
        let emailed: Bool

        enum CodingKeys: String, CodingKey {
            case emailed
            case redemptionURL = "redemption_url"
            case redemptionHTTPSURL = "redemption_https_url"
            case expiresAt = "expires_at"
        }
    }

    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Issue a new single-use redemption link for a purchase (audited); where e-mail is set up, the purchase's address gets a second one by e-mail."
        )
        @OptionGroup var app: AppOption
        @Option(help: "The purchase ID (pur_…).")
        var purchase: String
        @Option(help: "Public base URL of the server, for the HTTPS link (env REDEEM_PUBLIC_URL; default http://127.0.0.1:8080).")
        var publicURL: String?
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let sent = try await target.runSupport(
                publicURL: try PublicURL.resolve(publicURL),
                local: { support in
                    let sent = try await support.sendNewLink(appID: appID, purchaseID: purchase, actor: CLI.actor)
                    return SentLink(
                        redemptionURL: sent.link.customSchemeURL, redemptionHTTPSURL: sent.link.httpsURL, expiresAt: sent.link.expiresAt,
                        emailed: sent.emailed)
                },
                remote: { try await $0.send(.POST, "/admin/v1/apps/\(segment(appID))/purchases/\(segment(purchase))/links", as: SentLink.self) })
            if json { return try Output.json(sent) }
            print("New link (single use, expires \(ISODate.format(sent.expiresAt))): \(sent.redemptionHTTPSURL)\n  app: \(sent.redemptionURL)")
            print(sent.emailed ? "A second link, single-use too, was e-mailed to the purchase's address." : "Not e-mailed.")
        }
    }

    /// A purchase action's common options.
    struct PurchaseOptions: ParsableArguments {
        @OptionGroup var app: AppOption
        @Option(help: "The purchase ID (pur_…).")
        var purchase: String
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func path(_ action: String) throws -> String { "/admin/v1/apps/\(segment(try app.id))/purchases/\(segment(purchase))/\(action)" }
    }

    struct Refund: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Refund a purchase (audited): a sandbox one now; a Stripe one through Stripe (with --server), applied when Stripe confirms.")
        @OptionGroup var options: PurchaseOptions

        func run() async throws {
            let appID = try options.app.id
            let refunded = try await options.target.runSupport(
                publicURL: try PublicURL.resolve(nil),
                local: { try await $0.refund(appID: appID, purchaseID: options.purchase, actor: CLI.actor).purchase },
                remote: { try await $0.send(.POST, try options.path("refund"), as: Purchase.self) })
            if options.json { return try Output.json(refunded) }
            if refunded.refundedAt != nil {
                print("Refunded \(refunded.id) (\(refunded.productID)); it grants nothing now.")
            } else {
                print("Stripe was asked to refund \(refunded.id); it shows refunded when Stripe's webhook confirms.")
            }
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel a subscription at the end of its period (audited): sandbox now; Stripe through Stripe (with --server).")
        @OptionGroup var options: PurchaseOptions
        @Option(
            help: ArgumentHelp(
                "Why the buyer cancelled, if they said: \(CancellationFeedback.allCases.map(\.rawValue).joined(separator: ", ")).",
                valueName: "reason"))
        var reason: String?

        func run() async throws {
            let appID = try options.app.id
            let feedback: CancellationFeedback?
            do { feedback = try CancellationFeedback.parse(reason) } catch {
                throw ValidationError("--reason must be one of \(CancellationFeedback.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            let cancelled = try await options.target.runSupport(
                publicURL: try PublicURL.resolve(nil),
                local: {
                    try await $0.cancelAtPeriodEnd(appID: appID, purchaseID: options.purchase, actor: CLI.actor, feedback: feedback).purchase
                },
                remote: {
                    try await $0.send(.POST, try options.path("cancel"), body: feedback.map { ["feedback": $0.rawValue] }, as: Purchase.self)
                })
            if options.json { return try Output.json(cancelled) }
            let end = cancelled.expiresDate.map(ISODate.format) ?? "its period end"
            if cancelled.unsubscribeDetectedAt != nil {
                print("Cancelled \(cancelled.id): it stops renewing and ends \(end)\(feedback.map { " (reason: \($0.label))" } ?? "").")
            } else {
                print("Stripe was asked to cancel \(cancelled.id) at \(end); it shows when Stripe's webhook confirms.")
            }
        }
    }

    struct Transfer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move a purchase to another app user ID (audited; a TRANSFER event is sent).")
        @OptionGroup var options: PurchaseOptions
        @Option(name: .customLong("to"), help: "The app user ID that gets the purchase (created if new).")
        var appUserID: String

        func run() async throws {
            let appID = try options.app.id
            let moved = try await options.target.runSupport(
                publicURL: try PublicURL.resolve(nil),
                local: { try await $0.transfer(appID: appID, purchaseID: options.purchase, to: appUserID, actor: CLI.actor) },
                remote: { try await $0.send(.POST, try options.path("transfer"), body: ["app_user_id": appUserID], as: Purchase.self) })
            if options.json { return try Output.json(moved) }
            print("Moved \(moved.id) to \(appUserID).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the purchases of a customer, by any of its app user IDs.")
        @OptionGroup var app: AppOption
        @Option(name: .customLong("user"), help: "An app user ID or alias.")
        var appUserID: String
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        struct Listed: Codable { let purchases: [Purchase] }

        func run() async throws {
            let appID = try app.id
            let listed = try await target.runSupport(
                publicURL: try PublicURL.resolve(nil),
                local: { Listed(purchases: try await $0.purchases(appID: appID, appUserID: appUserID)) },
                remote: { try await $0.send(.GET, "/admin/v1/apps/\(segment(appID))/customers/\(segment(appUserID))/purchases", as: Listed.self) })
            if json { return try Output.json(listed) }
            if listed.purchases.isEmpty { print("\(appUserID) has no purchases.") }
            for purchase in listed.purchases { print(Purchases.line(purchase)) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a purchase with its redemption links, redemption attempts, e-mails and webhook deliveries.")
        @OptionGroup var options: PurchaseOptions

        func run() async throws {
            let appID = try options.app.id
            let shown = try await options.target.runSupport(
                publicURL: try PublicURL.resolve(nil),
                local: { PurchaseShown(try await $0.detail(appID: appID, purchaseID: options.purchase)) },
                remote: { try await $0.send(.GET, "/admin/v1/apps/\(segment(appID))/purchases/\(segment(options.purchase))", as: PurchaseShown.self) }
            )
            if options.json { return try Output.json(shown) }
            print(Purchases.line(shown.purchase))
            if let email = shown.purchase.email { print("  e-mail \(email)") }
            for link in shown.redemptionLinks {
                let state =
                    link.redeemedAt.map { "redeemed \(ISODate.format($0)) by \(link.redeemedBy ?? "?")" }
                    ?? link.openedAt.map { "page opened \(ISODate.format($0))" } ?? "not opened"
                print("  link issued \(ISODate.format(link.issuedAt)), expires \(ISODate.format(link.expiresAt)): \(state)")
            }
            for attempt in shown.redemptionAttempts {
                print("  attempt \(ISODate.format(attempt.createdAt)) by \(attempt.appUserID): \(attempt.outcome)")
            }
            for email in shown.emails {
                print("  e-mail \(email.id) \(email.kind) to \(email.recipient): \(email.state)" + (email.lastError.map { " (\($0))" } ?? ""))
            }
            for delivery in shown.webhookDeliveries {
                let state = delivery.deliveredAt != nil ? "delivered" : delivery.failedAt != nil ? "failed" : "pending"
                print("  webhook \(delivery.eventType) \(ISODate.format(delivery.createdAt)): \(state)")
            }
        }
    }

    static func line(_ purchase: Purchase) -> String {
        let state = purchase.refundedAt != nil ? "refunded" : purchase.isActive(at: Date()) ? "active" : "expired"
        let expiry = purchase.expiresDate.map { " until \(ISODate.format($0))" } ?? ""
        return "\(purchase.id)  \(purchase.productID)  \(purchase.store.rawValue)\(purchase.isSandbox ? " sandbox" : "")  \(state)\(expiry)"
    }
}

/// `GET /admin/v1/apps/{app_id}/purchases/{purchase_id}` as the CLI prints it; the local path builds the same shape.
struct PurchaseShown: Codable {
    struct Link: Codable {
        let issuedAt: Date
        let expiresAt: Date
        let openedAt: Date?
        let redeemedAt: Date?
        let redeemedBy: String?

        enum CodingKeys: String, CodingKey {
            case issuedAt = "issued_at"
            case expiresAt = "expires_at"
            case openedAt = "opened_at"
            case redeemedAt = "redeemed_at"
            case redeemedBy = "redeemed_by"
        }
    }

    struct Email: Codable {
        let id: String
        let purchaseID: String
        let kind: String
        let recipient: String
        let state: String
        let attempts: Int
        let queuedAt: Date
        let lastError: String?

        enum CodingKeys: String, CodingKey {
            case id, kind, recipient, state, attempts
            case purchaseID = "purchase_id"
            case queuedAt = "queued_at"
            case lastError = "last_error"
        }
    }

    let purchase: Purchase
    let redemptionAttempts: [RedemptionAttempt]
    let redemptionLinks: [Link]
    let emails: [Email]
    let webhookDeliveries: [WebhookDelivery]

    enum CodingKeys: String, CodingKey {
        case purchase, emails
        case redemptionAttempts = "redemption_attempts"
        case redemptionLinks = "redemption_links"
        case webhookDeliveries = "webhook_deliveries"
    }

    init(_ detail: SupportService.PurchaseDetail) {
        purchase = detail.purchase
        redemptionAttempts = detail.attempts
        redemptionLinks = detail.links.map {
            Link(issuedAt: $0.createdAt, expiresAt: $0.expiresAt, openedAt: $0.openedAt, redeemedAt: $0.redeemedAt, redeemedBy: $0.redeemedBy)
        }
        emails = detail.emails.map {
            Email(
                id: $0.email.id, purchaseID: $0.email.purchaseID, kind: $0.email.kind.rawValue, recipient: $0.email.recipient, state: $0.state,
                attempts: $0.email.attempts, queuedAt: $0.email.createdAt, lastError: $0.lastError)
        }
        webhookDeliveries = detail.webhooks
    }
}

/// `redeem grants`: RevenueCat-style granted (promotional) entitlements.
struct Grants: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Grant and revoke entitlements.", subcommands: [Create.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Grant an entitlement for a preset duration or until a date (audited; NON_RENEWING_PURCHASE in the PROMOTIONAL store).")
        @OptionGroup var app: AppOption
        @Option(name: .customLong("user"), help: "The app user ID that gets it (created if new).")
        var appUserID: String
        @Option(help: "The entitlement ID.")
        var entitlement: String
        @Option(help: "daily, three_day, weekly, two_week, monthly, two_month, three_month, six_month, yearly or lifetime.")
        var duration: String?
        @Option(help: "The end instead, e.g. 2026-12-31T00:00:00Z (at most 10 years away).")
        var until: String?
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        struct Body: Encodable {
            let entitlementID: String
            let duration: String?
            let until: Date?
            enum CodingKeys: String, CodingKey {
                case duration, until
                case entitlementID = "entitlement_id"
            }
        }

        func run() async throws {
            let appID = try app.id
            let end = try CLIDate.parse(until, option: "until")
            var preset: PromotionalDuration? = nil
            if let duration {
                guard let value = PromotionalDuration(rawValue: duration) else {
                    throw ValidationError(
                        field: "duration", reason: "must be one of " + PromotionalDuration.allCases.map(\.rawValue).joined(separator: ", "))
                }
                preset = value
            }
            let granted = try await target.runSupport(
                publicURL: try PublicURL.resolve(nil),
                local: {
                    try await $0.grant(appID: appID, appUserID: appUserID, entitlementID: entitlement, duration: preset, until: end, actor: CLI.actor)
                },
                remote: {
                    try await $0.send(
                        .POST, "/admin/v1/apps/\(segment(appID))/customers/\(segment(appUserID))/grants",
                        body: Body(entitlementID: entitlement, duration: duration, until: end), as: Purchase.self)
                })
            if json { return try Output.json(granted) }
            print("Granted \(entitlement) to \(appUserID) until \(granted.expiresDate.map(ISODate.format) ?? "forever") (grant \(granted.id)).")
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End a granted entitlement now (audited; CANCELLATION is sent).")
        @OptionGroup var app: AppOption
        @Option(help: "The grant's purchase ID (pur_…).")
        var purchase: String
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let revoked = try await target.runSupport(
                publicURL: try PublicURL.resolve(nil),
                local: { try await $0.revokeGrant(appID: appID, purchaseID: purchase, actor: CLI.actor) },
                remote: { try await $0.send(.POST, "/admin/v1/apps/\(segment(appID))/grants/\(segment(purchase))/revoke", as: Purchase.self) })
            if json { return try Output.json(revoked) }
            print("Revoked \(revoked.id) (\(revoked.productID)).")
        }
    }
}

/// `redeem emails retry`: send a failed e-mail again.
struct Emails: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The e-mail outbox.", subcommands: [Retry.self])

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a failed or retrying e-mail again now (audited); the running server's worker sends it.")
        @OptionGroup var app: AppOption
        @Option(help: "The e-mail's ID (from `redeem purchases show`).")
        var email: String
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let retried = try await target.runSupport(
                publicURL: try PublicURL.resolve(nil),
                local: { email in
                    let queued = try await email.retryEmail(appID: appID, emailID: self.email, actor: CLI.actor)
                    return PurchaseShown.Email(
                        id: queued.id, purchaseID: queued.purchaseID, kind: queued.kind.rawValue, recipient: queued.recipient,
                        state: queued.attempts > 0 ? "retrying" : "queued", attempts: queued.attempts, queuedAt: queued.createdAt, lastError: nil)
                },
                remote: { try await $0.send(.POST, "/admin/v1/apps/\(segment(appID))/emails/\(segment(email))/retry", as: PurchaseShown.Email.self) })
            if json { return try Output.json(retried) }
            print("E-mail \(retried.id) to \(retried.recipient) is queued to be sent again.")
        }
    }
}
