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
    case planChanged = "plan-changed"
    /// A downgrade: it waits for the period's end.
    case planScheduled = "plan-scheduled"
    /// The plan stays as it is (a switch waiting for the period's end dropped).
    case planKept = "plan-kept"
    case planRequested = "plan-requested"
    /// Stripe holds the switch until its payment goes through.
    case planAwaitsPayment = "plan-awaits-payment"
    /// No plan chosen, or one no longer offered: nothing changed.
    case planRefused = "plan-refused"

    var warns: Bool { [.reasonRefused, .planRefused, .planAwaitsPayment].contains(self) }

    var text: String { BuyerTexts.current["portal.notice.\(rawValue)"] }
}

/// A purchase as the portal shows it: name, price and state in words.
enum PortalPresenter {
    static func purchase(
        _ purchase: Purchase, product: Product?, actions: PortalRules.Actions, plans: [PlanChange.Option] = [], now: Date, format: BuyerFormat,
        scheduled: Product? = nil
    ) -> PortalPurchaseRow {
        let day = format.day
        let texts = format.texts
        // What this purchase cost (an offer's claim is free or its own price), in the product's words when it is that.
        let price =
            if let paid = purchase.price {
                paid == product?.price ? product.map(format.product) ?? format.price(paid) : format.price(paid)
            } else {
                purchase.offer != nil ? texts["price.free"] : product.map(format.product) ?? ""
            }
        let (state, stateClass): (String, String) =
            switch PurchaseTerm(purchase, at: now) {
            case .refunded(let date): (texts.format("portal.state.refunded", ["date": day(date)]), "ended")
            case .chargedBack(let date): (texts.format("portal.state.charged_back", ["date": day(date)]), "ended")
            case .ended(let date): (texts.format("portal.state.ended", ["date": day(date)]), "ended")
            case .revoked(let date): (texts.format("portal.state.revoked", ["date": day(date)]), "ended")
            case .retrying(let until): (texts.format("portal.state.retrying", ["date": day(until)]), "ending")
            case .ends(let date): (texts.format("portal.state.ends", ["date": day(date)]), "ending")
            case .renews(let date): (texts.format("portal.state.renews", ["date": day(date)]), "active")
            // Not bought here (the portal lists what was): its renewal is the store's it was paid in.
            case .expires(let date): (texts.format("portal.state.expires", ["date": day(date)]), "active")
            case .kept: (texts["portal.state.kept"], "active")
            }
        // Said of a sandbox purchase only: no money moved, and maybe a fast clock.
        let testNote: String? =
            if !purchase.isSandbox {
                nil
            } else if SandboxClock.runs(purchase) {
                texts["portal.test_renews"]
            } else {
                texts["portal.test_note"]
            }
        var row = PortalPurchaseRow(
            id: purchase.id, name: product?.displayName ?? purchase.productID, price: price, state: state, stateClass: stateClass,
            bought: day(purchase.purchaseDate), newLink: actions.newLink, cancel: actions.cancel, resume: actions.resume,
            billing: actions.billing, endsOn: purchase.expiresDate.map(day), testNote: testNote)
        let renewal = purchase.expiresDate.map(day)
        row.plans = plans.map { Choice(value: $0.product.id, label: planLabel($0, from: renewal, format: format)) }
        row.changePlan = !plans.isEmpty
        row.productID = purchase.productID
        if let plan = purchase.scheduledPlan, let renewal {
            row.scheduled = texts.format("portal.plan_scheduled", ["plan": scheduled?.displayName ?? plan.productID, "date": renewal])
            row.keepPlan = actions.changePlan
        }
        return row
    }

    /// "Pro yearly · $49.99 / year": the plan's name and its price in the purchase's currency, in words; a downgrade
    /// adds the day it would start (`renewal`, the period's end).
    static func planLabel(_ option: PlanChange.Option, from renewal: String?, format: BuyerFormat) -> String {
        var priced = option.product
        priced.price = option.price.price
        let label = (option.product.displayName ?? option.product.id) + " · " + format.product(priced)
        guard option.timing == .atRenewal, let renewal else { return label }
        return label + " · " + format.texts.format("portal.plan_from", ["date": renewal])
    }
}
