import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer
import RedeemStore

/// The support actions on purchases, grants and e-mails: the console's buttons, for a terminal.
extension Purchases {
    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Issue a new single-use redemption link for a purchase (audited); where e-mail is set up, the purchase's address gets a second one by e-mail."
        )
        @OptionGroup var app: AppOption
        @Option(help: "The purchase ID (pur_…).")
        var purchase: String
        @Option(
            help:
                "Public base URL of the server, for the HTTPS link (env \(Setting.publicURL.environmentName); default \(ServerConfiguration.defaultPublicURL.absoluteString))."
        )
        var publicURL: String?
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let sent = try await target.runSupport(
                publicURL: try PublicURL.resolve(publicURL),
                local: { support in
                    let sent = try await support.sendNewLink(appID: appID, purchaseID: purchase, actor: CLI.actor)
                    return Schemas.SentLink(
                        redemptionUrl: sent.link.customSchemeURL, redemptionHttpsUrl: sent.link.httpsURL, expiresAt: sent.link.expiresAt,
                        emailed: sent.emailed)
                },
                remote: { admin in
                    try await admin.call { try await $0.sendPurchaseLink(path: .init(appId: appID, purchaseId: purchase)) }.created.body.json
                })
            if json { return try Output.json(sent) }
            print("New link (single use, expires \(ISODate.format(sent.expiresAt))): \(sent.redemptionHttpsUrl)\n  app: \(sent.redemptionUrl)")
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
                remote: { admin in
                    // 202: Stripe was asked; its webhook applies the refund.
                    let answer = try await admin.call { try await $0.refundPurchase(path: .init(appId: appID, purchaseId: options.purchase)) }
                    if case .accepted(let asked) = answer { return try asked.body.json }
                    return try answer.ok.body.json
                })
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
                remote: { admin in
                    let path = Operations.CancelPurchase.Input.Path(appId: appID, purchaseId: options.purchase)
                    let body = feedback.map { Operations.CancelPurchase.Input.Body.json(.init(feedback: $0)) }
                    let answer = try await admin.call { try await $0.cancelPurchase(path: path, body: body) }
                    if case .accepted(let asked) = answer { return try asked.body.json }
                    return try answer.ok.body.json
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

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Let a subscription set to end renew again (audited): sandbox now; Stripe through Stripe (with --server).")
        @OptionGroup var options: PurchaseOptions

        func run() async throws {
            let appID = try options.app.id
            let resumed = try await options.target.runSupport(
                publicURL: try PublicURL.resolve(nil),
                local: { try await $0.resume(appID: appID, purchaseID: options.purchase, actor: CLI.actor).purchase },
                remote: { admin in
                    let path = Operations.ResumePurchase.Input.Path(appId: appID, purchaseId: options.purchase)
                    let answer = try await admin.call { try await $0.resumePurchase(path: path) }
                    if case .accepted(let asked) = answer { return try asked.body.json }
                    return try answer.ok.body.json
                })
            if options.json { return try Output.json(resumed) }
            let end = resumed.expiresDate.map(ISODate.format) ?? "its period end"
            if resumed.unsubscribeDetectedAt == nil {
                print("Resumed \(resumed.id): it renews again at \(end).")
            } else {
                print("Stripe was asked to resume \(resumed.id); it shows when Stripe's webhook confirms.")
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
                remote: { admin in
                    let path = Operations.TransferPurchase.Input.Path(appId: appID, purchaseId: options.purchase)
                    return try await admin.call { try await $0.transferPurchase(path: path, body: .json(.init(appUserId: appUserID))) }.ok.body.json
                })
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

        func run() async throws {
            let appID = try app.id
            let listed = try await target.runSupport(
                publicURL: try PublicURL.resolve(nil),
                local: { Schemas.PurchaseList(purchases: try await $0.purchases(appID: appID, appUserID: appUserID)) },
                remote: { admin in
                    try await admin.call { try await $0.listCustomerPurchases(path: .init(appId: appID, appUserId: appUserID)) }.ok.body.json
                })
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
                local: { PurchaseDetailView(try await $0.detail(appID: appID, purchaseID: options.purchase)) },
                remote: { admin in
                    try await admin.call { try await $0.getPurchase(path: .init(appId: appID, purchaseId: options.purchase)) }.ok.body.json
                }
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
                print(
                    "  e-mail \(email.id) \(email.kind) to \(email.recipient): \(email.state)"
                        + (email.lastError.map { " (\($0))" } ?? ""))
            }
            for delivery in shown.webhookDeliveries {
                let state = delivery.deliveredAt != nil ? "delivered" : delivery.failedAt != nil ? "failed" : "pending"
                print("  webhook \(delivery.eventType) \(ISODate.format(delivery.createdAt)): \(state)")
            }
        }
    }

    static func line(_ purchase: Purchase) -> String {
        let ended = purchase.dispute?.endedAccessAt != nil ? "charged back" : "refunded"
        let state = purchase.refundedAt != nil ? ended : purchase.isActive(at: Date()) ? "active" : "expired"
        let expiry = purchase.expiresDate.map { " until \(ISODate.format($0))" } ?? ""
        return "\(purchase.id)  \(purchase.productID)  \(purchase.store.rawValue)\(purchase.isSandbox ? " sandbox" : "")  \(state)\(expiry)"
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
                remote: { admin in
                    let body = Schemas.GrantInput(entitlementId: entitlement, duration: preset.flatMap { .init(rawValue: $0.rawValue) }, until: end)
                    return try await admin.call { try await $0.createGrant(path: .init(appId: appID, appUserId: appUserID), body: .json(body)) }
                        .created.body.json
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
                remote: { admin in try await admin.call { try await $0.revokeGrant(path: .init(appId: appID, purchaseId: purchase)) }.ok.body.json })
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
                local: { SupportEmailView(retried: try await $0.retryEmail(appID: appID, emailID: email, actor: CLI.actor)) },
                remote: { admin in try await admin.call { try await $0.retryEmail(path: .init(appId: appID, emailId: email)) }.ok.body.json })
            if json { return try Output.json(retried) }
            print("E-mail \(retried.id) to \(retried.recipient) is queued to be sent again.")
        }
    }
}
