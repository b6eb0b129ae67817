import Foundation
import RedeemCore
import RedeemStore

/// The offer page's claim as a use case: from a submitted form to its next step, decided here; the controller only
/// renders the step.
struct OfferClaimFlow: Sendable {
    let service: OfferCodeService
    let stripe: StripeSessions?

    enum Step {
        /// The code itself cannot be used (unknown, expired, used up): the code field again.
        case codeRefused(OfferRedemptionFailure)
        /// The address is not one: the offer's form again, as typed.
        case emailRefused(FoundOfferCode)
        /// The app requires its terms agreed to, and the box was not ticked: the offer's form again, as typed.
        case termsRefused(FoundOfferCode)
        /// The claim is refused: the offer's form again, as typed, with why.
        case refused(FoundOfferCode, OfferRedemptionFailure)
        /// Redeemed (now, or by an earlier submit of the same form): the success step with the purchase's link.
        case granted(Purchase, Product, RedemptionLink?)
        /// A paid offer in production: on to Stripe Checkout.
        case stripe(url: String)
        /// A paid offer in the sandbox: the built-in payment form.
        case sandboxPayment(FoundOfferCode)
        /// A paid offer where nothing can take payments.
        case notPayable

        var isRefusal: Bool {
            switch self {
            case .codeRefused, .refused: true
            case .emailRefused, .termsRefused, .granted, .stripe, .sandboxPayment, .notPayable: false
            }
        }
    }

    /// The form's POST: free offers are granted; paid ones continue to checkout once the redemption would accept them.
    func claim(_ claim: OfferRedeemPageController.Claim, ip: String?, sandbox: Bool) async throws -> Step {
        try await service.countClaim(ip: ip, appID: claim.app.id, claimant: claim.claimant)
        return try await once(claim) { try await decide(claim, sandbox: sandbox) }
    }

    /// A submit of a form whose claim already succeeded gets its success step, however it would be refused now: a
    /// double click's second submit may find the code used up, or the offer claimed, by the first one committing
    /// meanwhile. So a refusal is looked at again against the form's own purchase.
    func once(_ claim: OfferRedeemPageController.Claim, _ decide: () async throws -> Step) async throws -> Step {
        if let done = try await earlier(claim) { return done }
        let step = try await decide()
        guard step.isRefusal, let done = try await earlier(claim) else { return step }
        return done
    }

    func decide(_ claim: OfferRedeemPageController.Claim, sandbox: Bool) async throws -> Step {
        let found: FoundOfferCode
        switch try await service.lookUpClaim(appID: claim.app.id, code: claim.code) {
        case .failure(let failure): return .codeRefused(failure)
        case .success(let value): found = value
        }
        guard claim.emailIsValid else { return .emailRefused(found) }
        guard claim.acceptedTermsIfRequired else { return .termsRefused(found) }
        guard found.offer.isPaid else { return try await grant(claim, found: found, sandbox: sandbox, payment: nil) }
        // Decided as the redemption will decide it, before anyone pays for what they cannot have.
        if let failure = try await service.claimRefusal(
            appID: claim.app.id, code: claim.code, claimant: claim.claimant, email: claim.email, sandbox: sandbox)
        {
            return .refused(found, failure)
        }
        if sandbox { return .sandboxPayment(found) }
        guard let stripe else { return .notPayable }
        let base = service.publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let code = OfferCode.normalize(claim.code) ?? OfferCode.normalizeCustom(claim.code) ?? claim.code
        let url = try await stripe.createOfferSession(
            app: claim.app, product: found.product, offer: found.offer, code: code, claimant: claim.claimant, email: claim.email,
            successURL: "\(base)/checkout/\(claim.app.id)/\(found.product.id)/success?session_id={CHECKOUT_SESSION_ID}",
            cancelURL: OfferCodeLinks.redeemPageBase(publicURL: service.publicURL, appID: claim.app.id) + code)
        return .stripe(url: url)
    }

    /// The sandbox payment of a paid offer: no money moves; the purchase carries the offer's price.
    func pay(_ claim: OfferRedeemPageController.Claim, ip: String?) async throws -> Step {
        // The address was checked on the page before; a form without a valid one was not made by it.
        guard claim.emailIsValid else { throw ValidationError(field: "email", reason: "must be an e-mail address") }
        try await service.countPayment(ip: ip)
        return try await once(claim) {
            guard let (found, price) = try await service.paidOffer(appID: claim.app.id, code: claim.code) else { return .codeRefused(.invalid) }
            guard claim.acceptedTermsIfRequired else { return .termsRefused(found) }
            return try await grant(claim, found: found, sandbox: true, payment: .init(price: price))
        }
    }

    /// A repeated submit of a claim that already succeeded: its success step again.
    func earlier(_ claim: OfferRedeemPageController.Claim) async throws -> Step? {
        guard let purchase = try await service.earlierClaim(appID: claim.app.id, claimID: claim.claimID) else { return nil }
        let product = try await service.product(appID: claim.app.id, id: purchase.productID)
        return .granted(purchase, product, try await service.newLink(for: purchase))
    }

    func grant(
        _ claim: OfferRedeemPageController.Claim, found: FoundOfferCode, sandbox: Bool, payment: OfferCodeRedemptionRequest.Payment?
    ) async throws -> Step {
        let result = try await service.claimOnWeb(
            appID: claim.app.id, code: claim.code, claimID: claim.claimID, claimant: claim.claimant, email: claim.email, sandbox: sandbox,
            payment: payment, termsConsent: TermsConsent.given(app: claim.app, ticked: claim.acceptedTerms, at: service.clock.now()))
        switch result {
        case .success(let purchase): return .granted(purchase, found.product, try await service.newLink(for: purchase))
        case .failure(let failure): return .refused(found, failure)
        }
    }
}
