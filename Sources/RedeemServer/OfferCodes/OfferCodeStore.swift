import Foundation
import RedeemCore
import RedeemStore

/// What redeeming an offer code, in the app or on the web page, needs.
protocol OfferCodeStore: Sendable {
    func app(id: String) async throws -> App
    func product(appID: String, id: String) async throws -> Product
    /// The offer behind a typed code; never changes anything.
    func findOfferCode(appID: String, code: String) async throws -> FoundOfferCode?
    /// Redeems a code exactly once: claim, quota, one-per-customer record, purchase and event in one transaction.
    func redeemOfferCode(_ request: OfferCodeRedemptionRequest) async throws -> Result<OfferCodeRedemption, OfferRedemptionFailure>
    /// Why a claim would be refused, decided as `redeemOfferCode` decides, without writing.
    func offerClaimRefusal(_ request: OfferCodeRedemptionRequest) async throws -> OfferRedemptionFailure?
    func purchase(appID: String, checkoutReference: String) async throws -> Purchase?
}
