import Foundation
import Hummingbird
import RedeemCore

extension OfferRedeemPageController {
    /// The claim form's fields, checked.
    struct Claim {
        let app: App
        let code: String
        let claimID: String
        /// As typed; `emailIsValid` says whether it can be used.
        let email: String
        let emailIsValid: Bool
        /// The terms' box was ticked (`accept_terms`).
        let acceptedTerms: Bool
        /// The app user ID the link named, if any.
        let buyer: AppUserID?
        /// Who redeems: the named user, or an anonymous ID fixed by the claim, so a repeated submit is the same customer.
        let claimant: AppUserID
        let hiddenFields: [HiddenField]

        /// Ticked, or the app does not ask for it.
        var acceptedTermsIfRequired: Bool { app.consentGiven(ticked: acceptedTerms) }

        static func parse(_ request: Request, service: OfferCodeService) async throws -> Claim {
            let fields = try await FormBody.parse(request)
            guard let appID = fields["id"], !appID.isEmpty else {
                throw APIError.badRequest("Missing the app ID.", field: "id").onPage("error.detail.reopen_offer")
            }
            let app = try await service.app(id: appID)
            guard let code = fields["code"], !code.isEmpty else {
                throw APIError.badRequest("Missing the code.", field: "code").onPage("error.detail.reopen_offer")
            }
            guard let claimID = fields["claim_id"], FormID.isValid(claimID) else {
                throw APIError.badRequest("Missing or malformed claim_id; reload the page.", field: "claim_id").onPage("error.detail.reload")
            }
            let email = String((fields["email"] ?? "").trimmingCharacters(in: .whitespaces).prefix(254))
            let buyer = try fields["app_user_id"].flatMap { $0.isEmpty ? nil : try AppUserID.parse($0) }
            let claimant = try buyer ?? AppUserID(validating: AppUserID.anonymousPrefix + SecretToken.hash("offer-claim:" + claimID).prefix(32))
            var hidden = [
                HiddenField(name: "ctx", value: "offercodes"), HiddenField(name: "id", value: app.id), HiddenField(name: "code", value: code),
                HiddenField(name: "claim_id", value: claimID),
            ]
            if let buyer { hidden.append(HiddenField(name: "app_user_id", value: buyer.rawValue)) }
            return Claim(
                app: app, code: code, claimID: claimID, email: email, emailIsValid: Formats.isEmail(email),
                acceptedTerms: LegalLinks.ticked(fields), buyer: buyer, claimant: claimant, hiddenFields: hidden)
        }

    }
}

extension OfferRedemptionFailure {
    /// What the web page says: the app's words, for someone known by their address.
    var webMessage: String {
        switch self {
        case .alreadyRedeemed, .notEligible: BuyerTexts.current["offer.refused.web.\(rawValue)"]
        default: BuyerTexts.current["offer.refused.\(rawValue)"]
        }
    }

    /// A page's status: 404 for an unknown code, 410 for an expired one, else as the API answers.
    var pageStatus: HTTPResponse.Status {
        switch self {
        case .invalid: .notFound
        case .expired: .gone
        default: HTTPResponse.Status(code: errorCode.status)
        }
    }
}

extension OfferRedeemPageController {
    /// The product whose checkout sent the buyer here (`?product=`), to go back to it.
    struct BackLink {
        let productID: String
        let url: String
        let name: String
    }

    func backLink(app: App, productID: String?, buyer: AppUserID?, sandbox: Bool) async -> BackLink? {
        guard let productID, !productID.isEmpty, let product = try? await service.product(appID: app.id, id: productID) else { return nil }
        let url = PurchaseLinks.url(
            publicURL: service.publicURL, appID: app.id, productID: product.id, sandbox: sandbox, appUserID: buyer?.rawValue)
        return BackLink(productID: product.id, url: url, name: product.displayName ?? product.id)
    }

    /// A code that cannot be used: the code field again with what was typed, why, and the way back to the product.
    func codeRefused(
        app: App, sandbox: Bool, failure: OfferRedemptionFailure, code: String, hidden: [HiddenField], back: BackLink?
    ) -> Response {
        let error = BuyerTexts.current[failure == .invalid ? "offer.refused.web.invalid" : "offer.refused.\(failure.rawValue)"]
        var page = OfferRedeemPage(sandbox: sandbox)
        page.askCode = true
        page.typedCode = String(code.prefix(64))
        page.hidden = hidden
        page.error = error
        page.goBack(to: back)
        return self.page(app: app, status: failure.pageStatus, page)
    }

    static func notPayable(_ app: App) -> String {
        BuyerTexts.current.format("offer.not_payable", ["appName": app.name])
    }
}
