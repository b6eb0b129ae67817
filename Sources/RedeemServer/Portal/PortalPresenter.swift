import Foundation
import RedeemCore

/// What the portal says after an action; only these fixed texts, so a link cannot put words on the page.
enum PortalNotice: String {
    case cancelled
    case cancelRequested = "cancel-requested"
    case resumed
    case resumeRequested = "resume-requested"
    /// A cancellation whose reason is not one listed (only a tampered form sends one): nothing was cancelled.
    case reasonRefused = "reason-refused"

    var warns: Bool { self == .reasonRefused }

    var text: String {
        switch self {
        case .cancelled: "Cancelled. You keep your subscription until the end of the period; it won’t renew."
        case .cancelRequested: "Cancelled. It can take a minute to show here; you keep your subscription until the end of the period."
        case .resumed: "Resumed. Your subscription renews as before."
        case .resumeRequested: "Resumed. It can take a minute to show here; your subscription renews as before."
        case .reasonRefused: "Not cancelled: choose one of the reasons listed, or none, and confirm again."
        }
    }
}

/// A purchase as the portal shows it: name, price and state in words.
enum PortalPresenter {
    static func purchase(_ purchase: Purchase, product: Product?, actions: PortalRules.Actions, now: Date, format: BuyerFormat) -> PortalPurchaseRow {
        let day = format.day
        // What this purchase cost (an offer's claim is free or its own price), in the product's words when it is that.
        let price =
            if let paid = purchase.price {
                paid == product?.price ? product.map(format.product) ?? format.price(paid) : format.price(paid)
            } else {
                purchase.offer != nil ? "Free" : product.map(format.product) ?? ""
            }
        let (state, stateClass): (String, String) =
            switch PurchaseTerm(purchase, at: now) {
            case .refunded(let date): ("Refunded \(day(date))", "ended")
            case .ended(let date): ("Ended \(day(date))", "ended")
            case .revoked(let date): ("Withdrawn \(day(date))", "ended")
            case .retrying(let until): ("Payment failed; yours until \(day(until)) while it is retried", "ending")
            case .ends(let date): ("Ends \(day(date)); won’t renew", "ending")
            case .renews(let date): ("Renews \(day(date))", "active")
            // Not bought here (the portal lists what was): its renewal is the store's it was paid in.
            case .expires(let date): ("Expires \(day(date))", "active")
            case .kept: ("Yours to keep", "active")
            }
        // Said of a sandbox purchase only: no money moved, and maybe a fast clock.
        let testNote: String? =
            if !purchase.isSandbox {
                nil
            } else if SandboxClock.runs(purchase) {
                "A test purchase: no money moved, and it renews every few minutes while the app is tested."
            } else {
                "A test purchase: no money moved."
            }
        return PortalPurchaseRow(
            id: purchase.id, name: product?.displayName ?? purchase.productID, price: price, state: state, stateClass: stateClass,
            bought: day(purchase.purchaseDate), newLink: actions.newLink, cancel: actions.cancel, resume: actions.resume,
            billing: actions.billing, endsOn: purchase.expiresDate.map(day), testNote: testNote)
    }
}
