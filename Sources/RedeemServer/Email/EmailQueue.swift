import Foundation
import RedeemCore
import RedeemStore

/// Queues purchase e-mails for the worker, when e-mail is configured.
struct EmailQueue: Sendable {
    let store: any EmailStore
    let mail: MailSettings?
    let mailer: EmailDeliveryWorker?
    let clock: any RedeemClock

    /// Queues a new-link e-mail to the purchase's billing address, at most once per quiet period.
    /// Returns whether one was queued now.
    func queueNewLink(for purchase: Purchase) async throws -> Bool {
        try await queue(.newLink, for: purchase, quietPeriod: newLinkQuietPeriod)
    }

    func queueReceipt(for purchase: Purchase) async throws -> Bool {
        try await queue(.receipt, for: purchase, quietPeriod: 0)
    }

    /// Queues a portal sign-in link to `recipient` (the address the buyer typed, which `purchase` carries), at most
    /// once a minute per purchase. Returns whether one was queued.
    func queuePortalSignIn(for purchase: Purchase, recipient: String) async throws -> Bool {
        guard mail != nil else { return false }
        let email = QueuedEmail(
            id: Identifier.make(prefix: "eml"), appID: purchase.appID, purchaseID: purchase.id, kind: .portalSignIn, recipient: recipient,
            createdAt: clock.now(), language: Self.language(for: purchase))
        let queued = try await store.enqueueEmail(email, quietPeriod: 60)
        if queued { mailer?.wake() }
        return queued
    }

    /// Whether a purchase's redemption links go out by e-mail (e-mail being on): it has an address, and the app's policy
    /// gives it links. Pages ask this before saying a link was e-mailed. Its receipt goes out either way, as RevenueCat's
    /// Web Billing sends one for every purchase; without links it is a plain receipt.
    static func mails(_ purchase: Purchase, app: App) -> Bool {
        purchase.email != nil && app.redemptionLinkPolicy.allowsLinks(sandbox: purchase.isSandbox)
    }

    private func queue(_ kind: QueuedEmail.Kind, for purchase: Purchase, quietPeriod: TimeInterval) async throws -> Bool {
        guard mail != nil, purchase.email != nil else { return false }
        guard let email = email(kind, for: purchase, app: try await store.app(id: purchase.appID)) else { return false }
        let queued = try await store.enqueueEmail(email, quietPeriod: quietPeriod)
        if queued { mailer?.wake() }
        return queued
    }

    /// The e-mail of `kind` about `purchase`, for a caller that stores it in its own transaction (then `wake()`s the
    /// worker); nil when e-mail is off, the purchase has no address, or it is a link the app's policy does not give.
    func email(_ kind: QueuedEmail.Kind, for purchase: Purchase, app: App) -> QueuedEmail? {
        guard mail != nil, let recipient = purchase.email, kind == .receipt || Self.mails(purchase, app: app) else { return nil }
        return QueuedEmail(
            id: Identifier.make(prefix: "eml"), appID: purchase.appID, purchaseID: purchase.id, kind: kind, recipient: recipient,
            createdAt: clock.now(), language: Self.language(for: purchase))
    }

    /// The language an e-mail about `purchase` is written in: the buyer page's that asks for it now, else the one the
    /// purchase was made in; nil (English) for neither.
    static func language(for purchase: Purchase) -> String? { purchase.emailLanguage(requested: BuyerTexts.requested?.language) }

    /// What lifecycle changes need to queue the buyer's notices (`BuyerNotices`): nil when e-mail is off.
    var lifecycle: LifecycleMail? {
        mail == nil ? nil : LifecycleMail(language: BuyerTexts.requested?.language)
    }

    /// How long after a new-link e-mail another is held back.
    var newLinkQuietPeriod: TimeInterval { mail?.resendQuietPeriod ?? 0 }

    func wake() { mailer?.wake() }
}
