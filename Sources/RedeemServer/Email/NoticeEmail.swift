import Foundation
import RedeemCore
import RedeemMail
import RedeemStore

/// A lifecycle notice (`BuyerNotices`: renewal turned off, a refund or a chargeback, a failed renewal payment, a plan
/// switched or one waiting for the period's end, a paid renewal or a trial's first charge) or a reminder before a renewal (`RenewalReminder`). One template for them all; the
/// words and the rows are the kind's.
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
    /// The button's link: it signs the buyer in to the portal once (`PortalRules.noticeLinkLifetime`), so acting on the
    /// notice needs no second e-mail.
    let buttonURL: String?
    /// The portal's own address, in the foot.
    let manageURL: String
    let email: String
    let supportEmail: String?
    /// Absolute, for mail clients.
    let iconURL: String?
    let legal: LegalLinks?
}

extension EmailComposer {
    /// The notice as the purchase stands when it is sent: a renewal-off notice names the day access ends, a reminder the
    /// day it renews and the price it renews at.
    func notice(_ email: QueuedEmail, app: App, now: Date) async throws -> MailMessage {
        let purchase = try await store.purchase(appID: email.appID, id: email.purchaseID)
        let product = try await store.product(appID: email.appID, id: purchase.productID)
        let format = Self.format(email)
        let texts = format.texts
        let key = "mail.\(email.kind.rawValue)"
        let productName = product.displayName ?? product.id
        let until = purchase.expiresDate.map(format.day)
        var price = purchase.price.map { $0 == product.price ? format.product(product) : format.price($0) }
        if [.renewalReminder, .trialEnding].contains(email.kind) {
            // What it renews at, per period: a reminder names the next charge, not the trial's.
            var renewing = product
            renewing.price = try await store.productBilling(appID: email.appID, productID: product.id).renewalPrice(of: purchase)
            price = format.product(renewing)
        }
        var rows = [NoticeEmail.Row(label: texts["receipt.product"], value: productName)]
        if let price { rows.append(.init(label: texts["receipt.price"], value: price)) }
        let dateLabel: String? =
            switch email.kind {
            case .renewalOff, .planScheduled: "mail.notice.until"
            case .renewalReminder: "mail.notice.renews_on"
            case .planChanged, .renewed, .trialConverted: purchase.unsubscribeDetectedAt == nil ? "mail.notice.renews_on" : "mail.notice.until"
            case .trialEnding: "mail.notice.trial_ends"
            default: nil
            }
        // A charge's receipt says when it was paid (the notice is queued with the charge), before when it renews.
        if [.renewed, .trialConverted].contains(email.kind) {
            rows.append(.init(label: texts["mail.notice.paid_on"], value: format.day(email.createdAt)))
        }
        if let dateLabel, let until { rows.append(.init(label: texts[dateLabel], value: until)) }
        if email.kind == .refunded, let at = purchase.refundedAt {
            rows.append(.init(label: texts["mail.notice.refunded_on"], value: format.day(at)))
        }
        if email.kind == .chargeback, let dispute = purchase.dispute {
            rows.append(.init(label: texts["mail.notice.disputed_on"], value: format.day(dispute.openedAt)))
        }
        // A switch waiting for the period's end: the plan after it, at the price it was asked for.
        var next = (name: "", price: "")
        if email.kind == .planScheduled, let plan = purchase.scheduledPlan {
            var after = try await store.product(appID: email.appID, id: plan.productID)
            after.price = plan.price ?? after.price
            next = (after.displayName ?? after.id, format.product(after))
            rows.append(.init(label: texts["mail.notice.then"], value: next.name + " · " + next.price))
        }
        rows.append(.init(label: texts["mail.order"], value: purchase.id))
        let values = [
            "appName": app.name, "productName": productName, "date": until ?? "", "price": price ?? "", "newPlan": next.name, "newPrice": next.price,
        ]
        // Ended for good: nothing to manage.
        let button = [.refunded, .chargeback].contains(email.kind) ? nil : texts[key + ".button"]
        let model = NoticeEmail(
            appName: app.name, heading: texts[key + ".heading"], lead: texts.format(key + ".lead", values), rows: rows,
            buttonLabel: button,
            buttonURL: button == nil ? nil : try await signInLink(email, app: app, now: now, lifetime: PortalRules.noticeLinkLifetime),
            manageURL: PortalLinks.home(publicURL: links.publicURL, appID: app.id), email: email.recipient, supportEmail: app.supportEmail,
            iconURL: absoluteIcon(app), legal: LegalLinks(app))
        return try message(
            email, app: app, subject: texts.format(key + ".subject", values), template: "email-notice", language: texts.language, model)
    }
}
