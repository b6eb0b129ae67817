import Foundation
import RedeemCore
import RedeemStore

/// Offer codes redeemed in the app or claimed on the web page. What is refused is decided by Core's `OfferRules`
/// inside the store's transaction; this service adds the rate limits, the receipt, and idempotent web claims.
struct OfferCodeService: Sendable {
    let store: any OfferCodeStore
    let emailQueue: EmailQueue
    let limiter: RateLimiter
    let clock: any RedeemClock
    let publicURL: URL
    let links: RedemptionLinkIssuer

    func app(id: String) async throws -> App { try await store.app(id: id) }
    func product(appID: String, id: String) async throws -> Product { try await store.product(appID: appID, id: id) }

    /// Showing a code's page tells whether the code exists, so it is counted per IP.
    func countPageView(ip: String?) async throws { try await limiter.offerPage(ip: ip) }
    func countClaim(ip: String?, appID: String, claimant: AppUserID) async throws {
        try await limiter.offerRedemption(ip: ip, appID: appID, user: claimant)
    }
    func countPayment(ip: String?) async throws { try await limiter.offerPayment(ip: ip) }

    /// A paid offer's code and what claiming it charges, for the sandbox payment; nil when the code is unknown or its
    /// offer is free.
    func paidOffer(appID: String, code: String) async throws -> (FoundOfferCode, Price)? {
        guard let found = try await store.findOfferCode(appID: appID, code: code), let price = found.offer.charge else { return nil }
        return (found, price)
    }

    /// A fresh redemption link for a claimed purchase, for its success page.
    func newLink(for purchase: Purchase) async throws -> RedemptionLink? { try await links.issue(for: purchase, now: clock.now()) }

    /// A refusal, with the web page that takes payment when the offer is paid.
    struct Refusal: Error {
        let failure: OfferRedemptionFailure
        var redeemURL: String?
    }

    /// `POST /v1/subscribers/redeem_offer_code`: redeems for `claimant`, answering with the CustomerInfo the
    /// redemption's own transaction committed.
    func redeemInApp(
        appID: String, code: String, claimant: AppUserID, sandbox: Bool, ip: String?
    ) async throws
        -> Result<(OfferCodeRedemption, CustomerInfo), Refusal>
    {
        try await limiter.offerRedemption(ip: ip, appID: appID, user: claimant)
        var request = OfferCodeRedemptionRequest(appID: appID, code: code, claimant: claimant, channel: .sdk, isSandbox: sandbox, now: clock.now())
        request.includeCustomerInfo = true
        let result = try await store.redeemOfferCode(request)
        RedeemMetrics.offerCodeRedemption(result.metricName, channel: "sdk")
        if case .success = result { RedeemMetrics.purchase(source: "offer_code") }
        switch result {
        case .success(let redemption):
            guard let info = redemption.customerInfo else { throw StoreError.conflict("the redemption returned no CustomerInfo") }
            return .success((redemption, info))
        case .failure(let failure):
            var refusal = Refusal(failure: failure)
            if failure == .paymentRequired, let canonical = OfferCode.normalize(code) ?? OfferCode.normalizeCustom(code) {
                refusal.redeemURL = OfferCodeLinks.paymentPage(
                    publicURL: publicURL, appID: appID, code: canonical, claimant: claimant.rawValue, sandbox: sandbox)
            }
            return .failure(refusal)
        }
    }

    /// The code's offer, or why it cannot be redeemed now; never changes anything.
    func lookUp(appID: String, code: String) async throws -> Result<FoundOfferCode, OfferRedemptionFailure> {
        guard let found = try await store.findOfferCode(appID: appID, code: code) else { return .failure(.invalid) }
        if let failure = found.unavailability(at: clock.now()) { return .failure(failure) }
        return .success(found)
    }

    /// `lookUp` for a claim on the web page: a code refused before the redemption is counted as a web redemption's
    /// refusal, as one refused by the redemption is.
    func lookUpClaim(appID: String, code: String) async throws -> Result<FoundOfferCode, OfferRedemptionFailure> {
        let result = try await lookUp(appID: appID, code: code)
        if case .failure(let failure) = result { RedeemMetrics.offerCodeRedemption(failure.rawValue, channel: "web") }
        return result
    }

    /// Why this web claim would be refused (as the redemption will decide it, against the claimant and the address),
    /// before a paid offer's checkout; nil when it would be granted.
    func claimRefusal(appID: String, code: String, claimant: AppUserID, email: String, sandbox: Bool) async throws -> OfferRedemptionFailure? {
        let refusal = try await store.offerClaimRefusal(
            OfferCodeRedemptionRequest(
                appID: appID, code: code, claimant: claimant, channel: .web, isSandbox: sandbox, email: email, now: clock.now()))
        if let refusal { RedeemMetrics.offerCodeRedemption(refusal.rawValue, channel: "web") }
        return refusal
    }

    /// The purchase an earlier submit of this web claim made, if any: a repeated submit shows it again.
    func earlierClaim(appID: String, claimID: String) async throws -> Purchase? {
        try await store.purchase(appID: appID, checkoutReference: Self.reference(claimID))
    }

    /// Redeems a web claim for its claimant and queues the receipt.
    func claimOnWeb(
        appID: String, code: String, claimID: String, claimant: AppUserID, email: String, sandbox: Bool,
        payment: OfferCodeRedemptionRequest.Payment?, termsConsent: TermsConsent? = nil
    ) async throws -> Result<Purchase, OfferRedemptionFailure> {
        let reference = Self.reference(claimID)
        var request = OfferCodeRedemptionRequest(
            appID: appID, code: code, claimant: claimant, channel: .web, isSandbox: sandbox,
            store: payment == nil ? .promotional : .rcBilling, email: email, payment: payment, checkoutReference: reference, now: clock.now())
        request.language = BuyerTexts.requested?.language
        request.termsConsent = termsConsent
        let result = try await store.redeemOfferCode(request)
        RedeemMetrics.offerCodeRedemption(result.metricName, channel: "web")
        if case .success = result { RedeemMetrics.purchase(source: "offer_code") }
        // A refusal that is the form's own earlier submit is `OfferClaimFlow.once`'s to find.
        guard case .success(let redemption) = result else { return result.map(\.purchase) }
        _ = try await emailQueue.queueReceipt(for: redemption.purchase)
        return .success(redemption.purchase)
    }

    static func reference(_ claimID: String) -> String { "offer:" + claimID }
}
