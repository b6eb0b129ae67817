import Foundation
import RedeemCore
import RedeemMail
import RedeemStore

/// A lifecycle notice (`BuyerNotices`): renewal turned off, a refund, a failed renewal payment. One template for the
/// three; the words and the rows are the kind's.
struct NoticeEmail: PageModel {
    struct Row: Sendable {
        let label: String
        let value: String
    }

    let appName: String
    let heading: String
    let lead: String
    let rows: [Row]
    /// The button to the portal, where the buyer resumes the subscription or updates the payment method; nil: none.
    let buttonLabel: String?
    let manageURL: String
    let email: String
    let supportEmail: String?
    /// Absolute, for mail clients.
    let iconURL: String?
    let legal: LegalLinks?
}

extension EmailComposer {
    /// The notice as the purchase stands when it is sent: a renewal-off notice names the day access ends.
    func notice(_ email: QueuedEmail, app: App) async throws -> MailMessage {
        let purchase = try await store.purchase(appID: email.appID, id: email.purchaseID)
        let product = try await store.product(appID: email.appID, id: purchase.productID)
        let format = Self.format(email)
        let texts = format.texts
        let key = "mail.\(email.kind.rawValue)"
        let productName = product.displayName ?? product.id
        let until = purchase.expiresDate.map(format.day)
        var rows = [NoticeEmail.Row(label: texts["receipt.product"], value: productName)]
        if let price = purchase.price {
            rows.append(.init(label: texts["receipt.price"], value: price == product.price ? format.product(product) : format.price(price)))
        }
        switch email.kind {
        case .renewalOff: if let until { rows.append(.init(label: texts["mail.notice.until"], value: until)) }
        case .refunded: if let at = purchase.refundedAt { rows.append(.init(label: texts["mail.notice.refunded_on"], value: format.day(at))) }
        default: break
        }
        rows.append(.init(label: texts["mail.order"], value: purchase.id))
        let values = ["appName": app.name, "productName": productName, "date": until ?? ""]
        let model = NoticeEmail(
            appName: app.name, heading: texts[key + ".heading"], lead: texts.format(key + ".lead", values), rows: rows,
            buttonLabel: email.kind == .refunded ? nil : texts[key + ".button"],
            manageURL: PortalLinks.home(publicURL: links.publicURL, appID: app.id), email: email.recipient, supportEmail: app.supportEmail,
            iconURL: absoluteIcon(app), legal: LegalLinks(app))
        return try message(
            email, app: app, subject: texts.format(key + ".subject", values), template: "email-notice", language: texts.language, model)
    }
}
