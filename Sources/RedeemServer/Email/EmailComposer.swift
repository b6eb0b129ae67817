import Foundation
import RedeemCore
import RedeemMail
import RedeemStore

/// Turns a queued e-mail into a message, minting its redemption link at send time (no stored plaintext token).
struct EmailComposer: Sendable {
    let store: any EmailStore
    let links: RedemptionLinkIssuer
    let templates: Templates
    /// The configured sender (`--mail-from`); each app's e-mails carry the app's name as its display name.
    var sender: MailAddress? = nil

    func compose(_ email: QueuedEmail, now: Date) async throws -> MailMessage {
        let app = try await store.app(id: email.appID)
        let purchase = try await store.purchase(appID: email.appID, id: email.purchaseID)
        let product = try await store.product(appID: email.appID, id: purchase.productID)
        let link = try await links.issue(for: purchase, now: now)
        var context: [String: Any] = [
            "appName": app.name,
            "productName": product.displayName ?? product.id,
            "expiresIn": TimeLeft.words(seconds: app.redemptionLinkLifetimeSeconds),
        ]
        if let price = purchase.price { context["price"] = PriceFormat.string(price) }
        if let link {
            context["httpsURL"] = link.httpsURL
            context["customSchemeURL"] = link.customSchemeURL
        }
        if let support = app.supportEmail { context["supportEmail"] = support }
        let name = email.kind == .receipt ? "email-receipt" : "email-new-link"
        let subject = email.kind == .receipt ? "Your \(app.name) purchase" : "Your new \(app.name) link"
        // From the app by name, answered to the app's support address, so a buyer's reply reaches the people who can help.
        let from = sender.flatMap { try? MailAddress($0.address, name: app.name) }
        let replyTo = app.supportEmail.flatMap { try? MailAddress($0) }
        return try MailMessage(
            from: from, to: [MailAddress(email.recipient)], replyTo: replyTo, subject: subject,
            text: templates.render("\(name).txt", context), html: templates.render("\(name).html", context)
        )
    }
}
