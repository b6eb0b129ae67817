import Foundation
import Hummingbird
import RedeemCore
import RedeemQR

/// The support actions on a customer's purchases, from their page: a new link, refund, cancel and resume, a plan change, revoke,
/// transfer, a promotional grant, the customer's offering, and an e-mail sent again. Each checks the operator's role
/// and returns to the customer's page, saying what was done.
struct ConsolePurchaseActionsController {
    let service: ConsoleService
    let offeringOverrides: OfferingOverrideService
    let pages: ConsolePages

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/link", use: newLink)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/refund", use: refund)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/cancel", use: cancel)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/resume", use: resume)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/plan", use: changePlan)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/revoke", use: revoke)
        router.post("/console/apps/{app_id}/purchases/{purchase_id}/transfer", use: transfer)
        router.post("/console/apps/{app_id}/customers/{customer_id}/grants", use: grant)
        router.post("/console/apps/{app_id}/customers/{customer_id}/offering", use: chooseOffering)
        router.post("/console/apps/{app_id}/emails/{email_id}/retry", use: retryEmail)
    }

    /// A new link for a purchase, one token either way: e-mailed to the purchase's address (`delivery=email`; the e-mail
    /// mints it), or shown once here with its QR code. Any role may.
    @Sendable func newLink(_ request: Request, context: ConsoleContext) async throws -> Response {
        let appID = try context.appID
        try context.require(.sendLink, "send links")
        let purchaseID = try context.parameters.decoded("purchase_id")
        let back = context.form["customer_id"].map { ConsolePresenter.customerURL(appID: appID, customerID: $0) } ?? "/console/apps/\(appID)"
        if context.form["delivery"] == "email" {
            _ = try await service.support.emailNewLink(appID: appID, purchaseID: purchaseID, actor: context.session.actor)
            return ConsolePages.redirect(ConsolePages.noticeURL(back, .linkEmailed))
        }
        let sent = try await service.support.sendNewLink(appID: appID, purchaseID: purchaseID, actor: context.session.actor, emailing: false)
        let values = NewLinkPage(
            purchaseID: sent.purchase.id, httpsURL: sent.link.httpsURL, schemeURL: sent.link.customSchemeURL,
            expires: ConsolePresenter.date(sent.link.expiresAt), emailed: sent.emailed, back: back,
            qrSVG: try QRCode(encoding: sent.link.httpsURL).svg(label: "QR code of the new link"), email: sent.purchase.email)
        return pages.page("console-new-link", context: context, values)
    }

    /// Refunds a purchase (owners), once the form's box confirming it is ticked: a sandbox one at once, a Stripe one
    /// through Stripe. Then back to the customer, saying which.
    @Sendable func refund(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.refund, "refund purchases", confirm: "refund") { _, appID, session in
            let done = try await service.support.refund(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), actor: session.actor)
            return ConsolePages.customerNotice(appID, done.purchase.customerID, done.pending ? .refundRequested : .refunded)
        }
    }

    /// Stops a subscription renewing at the end of its period (owners).
    @Sendable func cancel(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.cancel, "cancel subscriptions", confirm: "cancellation") { form, appID, session in
            let done = try await service.support.cancelAtPeriodEnd(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), actor: session.actor,
                feedback: try CancellationFeedback.parse(form["feedback"]))
            return ConsolePages.customerNotice(appID, done.purchase.customerID, done.pending ? .cancelRequested : .cancelled)
        }
    }

    /// Lets a subscription set to end with its period renew again (owners, as cancelling).
    @Sendable func resume(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.cancel, "resume subscriptions", confirm: nil) { _, appID, session in
            let done = try await service.support.resume(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), actor: session.actor)
            return ConsolePages.customerNotice(appID, done.purchase.customerID, done.pending ? .resumeRequested : .resumed)
        }
    }

    /// Switches a subscription to another plan of its group (owners, as cancelling), once the box is ticked.
    @Sendable func changePlan(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.cancel, "change plans", confirm: "plan change") { form, appID, session in
            let done = try await service.support.changePlan(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), to: form["product_id"] ?? "", actor: session.actor)
            return ConsolePages.customerNotice(appID, done.purchase.customerID, ConsoleNotice(rawValue: done.planResult.rawValue) ?? .planChanged)
        }
    }

    /// Ends a granted entitlement now (owners).
    @Sendable func revoke(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.revoke, "revoke grants", confirm: "revocation") { _, appID, session in
            let purchase = try await service.support.revokeGrant(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), actor: session.actor)
            return ConsolePages.customerNotice(appID, purchase.customerID, .revoked)
        }
    }

    /// Moves a purchase to another app user ID (owners); the page then shows the purchase's new owner.
    @Sendable func transfer(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.transfer, "transfer purchases", confirm: "transfer") { form, appID, session in
            let purchase = try await service.support.transfer(
                appID: appID, purchaseID: try context.parameters.decoded("purchase_id"), to: form["app_user_id"] ?? "",
                actor: session.actor)
            return ConsolePages.customerNotice(appID, purchase.customerID, .transferred)
        }
    }

    /// Grants an entitlement for a preset duration or until a date (any role).
    @Sendable func grant(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.grant, "grant entitlements", confirm: nil) { form, appID, session in
            let customer = try await service.customerRecord(appID: appID, id: try context.parameters.decoded("customer_id"))
            let choice = form["duration"] ?? ""
            var duration: PromotionalDuration? = nil
            var until: Date? = nil
            if choice == "until" {
                // A date field: the grant ends at the start of that day, UTC.
                guard let date = ISODate.parse((form["until"] ?? "") + "T00:00:00Z") else {
                    throw APIError.badRequest("Give the end date as YYYY-MM-DD.", field: "until")
                }
                until = date
            } else {
                guard let preset = PromotionalDuration(rawValue: choice) else { throw APIError.badRequest("Choose a duration.", field: "duration") }
                duration = preset
            }
            // The page's form ID: a double click grants once.
            _ = try await service.support.grant(
                appID: appID, appUserID: customer.originalAppUserID, entitlementID: form["entitlement_id"] ?? "", duration: duration,
                until: until, requestID: try FormID.submitted(form, field: "grant_id"), actor: session.actor)
            return ConsolePages.customerNotice(appID, customer.id, .granted)
        }
    }

    /// This customer's current offering (RevenueCat's offering override); the empty choice gives back the app's own.
    @Sendable func chooseOffering(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.chooseOffering, "choose offerings", confirm: nil) { form, appID, session in
            let customer = try await service.customerRecord(appID: appID, id: try context.parameters.decoded("customer_id"))
            let chosen = form["offering_id"].flatMap { $0.isEmpty ? nil : $0 }
            try await offeringOverrides.set(
                appID: appID, appUserID: try AppUserID(validating: customer.originalAppUserID), offeringID: chosen, actor: session.actor)
            return ConsolePages.customerNotice(appID, customer.id, .offeringChosen)
        }
    }

    /// Sends a failed or retrying e-mail again now (any role).
    @Sendable func retryEmail(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.act(.resendEmail, "re-send e-mails", confirm: nil) { form, appID, session in
            let email = try await service.support.retryEmail(appID: appID, emailID: try context.parameters.decoded("email_id"), actor: session.actor)
            if form["back"] == "outbox" { return ConsolePages.noticeURL("/console/apps/\(appID)/emails", .emailRetried) }
            let purchase = try await service.purchase(appID: appID, id: email.purchaseID)
            return ConsolePages.customerNotice(appID, purchase.customerID, .emailRetried)
        }
    }
}
