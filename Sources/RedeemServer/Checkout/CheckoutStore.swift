import Foundation
import RedeemCore
import RedeemStore

/// What web checkouts (purchase links, the sandbox checkout, the JSON API) need.
protocol CheckoutStore: Sendable {
    func app(id: String) async throws -> App
    /// For the funnel: a purchase link started a checkout.
    func recordCheckoutStart(appID: String, productID: String, sandbox: Bool, now: Date) async throws
    func product(appID: String, id: String) async throws -> Product
    func findCustomer(appID: String, appUserID: AppUserID) async throws -> Customer?
    func purchases(customerID: String) async throws -> [Purchase]
    func grant(_ grant: PurchaseGrant, idempotency: Idempotency?, now: Date) async throws -> GrantResult
    func originalAppUserID(customerID: String) async throws -> String?
    /// The purchase a checkout (a Stripe Checkout Session, a sandbox checkout, a web claim) produced.
    func purchase(appID: String, checkoutReference: String) async throws -> Purchase?
    func purchase(appID: String, id: String) async throws -> Purchase
    /// The purchase and state of a redemption link, for the success page reopened by its link.
    func redemptionTokenState(tokenHash: String) async throws -> RedemptionTokenState?
    /// A purchase's links, to tell whether any of them (the e-mailed one, say) was redeemed.
    func redemptionLinks(appID: String, purchaseID: String) async throws -> [IssuedLink]
    func createWebCheckout(_ checkout: WebCheckout) async throws
    func webCheckout(appID: String?, id: String) async throws -> WebCheckout?
    func advanceWebCheckout(id: String, to status: WebCheckout.Status, now: Date) async throws
    /// The product's prices per currency and its trial.
    func productBilling(appID: String, productID: String) async throws -> ProductBilling
    /// What `TrialRules` decides from: the buyer's and the address's earlier purchases of the product.
    func trialFacts(appID: String, productID: String, buyer: AppUserID?, email: String?, trialDays: Int?) async throws -> TrialFacts
    /// The Stripe Price made for a price, kept for the next checkout.
    func setStripePriceID(_ stripePriceID: String, for price: ProductPrice) async throws
}
