import Foundation
import RedeemCore
import RedeemStore

/// What the console's Customers pages read: one customer with everything about them (the list of recent customers is
/// `SupportService.customers`, and the export `CustomerExportService`, which the admin API and the CLI share).
extension ConsoleService {
    /// One customer as the page shows them: the stored facts, the CustomerInfo the app sees, and what the page's forms
    /// offer.
    struct PersonView: Sendable {
        let facts: CustomerFacts
        let info: CustomerInfo
        let entitlementIDs: [String]
        /// Each product's display name, where it has one.
        let productNames: [String: String]
        /// The app's offerings (the current one first), to choose this customer's from, and its products.
        let offerings: [Offering]
        let products: [Product]
        /// Whether Stripe is configured: refunds and renewal changes of Stripe purchases go through it.
        let stripeOn: Bool
        /// Whether e-mail is on: a new link may be e-mailed rather than shown.
        let mailOn: Bool
        let now: Date
        /// The plans each purchase may switch to (`SupportService.planOptions`), by purchase ID; none for most.
        var plans: [String: [PlanChange.Option]] = [:]
    }

    func person(appID: String, id: String) async throws -> PersonView {
        let facts = try await store.customerFacts(appID: appID, customerID: id)
        // Looking is not a sighting: the customer's "last seen" and their place in the list stay as the app left them.
        let now = clock.now()
        let info = try await store.observedCustomerInfo(
            appID: appID, appUserID: try AppUserID(validating: facts.customer.originalAppUserID), now: now)
        let products = try await store.products(appID: appID)
        var names: [String: String] = [:]
        for product in products { names[product.id] = product.displayName }
        var view = PersonView(
            facts: facts, info: info, entitlementIDs: try await store.entitlements(appID: appID).map(\.id), productNames: names,
            offerings: try await store.offerings(appID: appID), products: products,
            stripeOn: support.stripe != nil, mailOn: support.emailQueue.mail != nil, now: now)
        for purchase in facts.purchases {
            // Nothing is read for a purchase that may not switch (most of them).
            let plans = try await support.planOptions(purchase)
            if !plans.isEmpty { view.plans[purchase.id] = plans }
        }
        return view
    }
}
