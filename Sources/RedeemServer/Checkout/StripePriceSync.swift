import Foundation
import Logging
import RedeemCore

/// Makes the Stripe Prices of a product's prices once they are added or changed, when Stripe is configured. A Stripe
/// outage does not undo the change: the first checkout in that currency makes the Price instead.
struct StripePriceSync: Sendable {
    let stripe: StripeSessions?
    let store: any CheckoutStore
    let logger: Logger

    /// The billing with the Stripe Price IDs it now has; new Prices carry the app's tax code.
    func sync(_ billing: ProductBilling, product: Product, taxCode: String?) async -> ProductBilling {
        guard let stripe else { return billing }
        var synced = billing
        for (index, price) in billing.prices.enumerated() where price.stripePriceID == nil {
            do {
                synced.prices[index].stripePriceID = try await stripe.stripePriceID(for: price, product: product, taxCode: taxCode) {
                    try await store.setStripePriceID($0, for: price)
                }
            } catch {
                logger.warning(
                    "stripe price not made", metadata: ["product_id": "\(product.id)", "currency": "\(price.currency)", "error": "\(error)"])
            }
        }
        return synced
    }
}
