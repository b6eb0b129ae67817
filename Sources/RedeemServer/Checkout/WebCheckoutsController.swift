import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// The JSON purchase API for web apps that build their own checkout, like RevenueCat's Web SDK:
/// start a checkout, send the buyer to its URL, poll its status, and present `redemption_info` yourself.
struct WebCheckoutsController {
    let store: any CheckoutStore
    let clock: any RedeemClock
    let publicURL: URL
    let stripe: StripeSessions?
    let links: RedemptionLinkIssuer

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("/web_checkouts", use: start)
        group.get("/web_checkouts/{checkout_id}", use: status)
    }

    struct StartRequest: Decodable {
        let productID: String
        let appUserID: String?
        let email: String?
        let metadata: [String: String]?

        enum CodingKeys: String, CodingKey {
            case email, metadata
            case productID = "product_id"
            case appUserID = "app_user_id"
        }
    }

    struct RedemptionInfo: Encodable {
        let redemptionURL: String
        let redemptionHTTPSURL: String
        let expiresAt: Date

        enum CodingKeys: String, CodingKey {
            case redemptionURL = "redemption_url"
            case redemptionHTTPSURL = "redemption_https_url"
            case expiresAt = "expires_at"
        }
    }

    struct Status: Encodable {
        let id: String
        let status: WebCheckout.Status
        let isSandbox: Bool
        var checkoutURL: String?
        var purchaseID: String?
        var redemptionInfo: RedemptionInfo?

        enum CodingKeys: String, CodingKey {
            case id, status
            case isSandbox = "is_sandbox"
            case checkoutURL = "checkout_url"
            case purchaseID = "purchase_id"
            case redemptionInfo = "redemption_info"
        }
    }

    @Sendable func start(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Status> {
        let appID = try context.sdkAppID()
        let sandbox = context.key?.kind == .publicSandbox
        let input = try await request.decodeJSON(StartRequest.self, context: context)
        let app = try await store.app(id: appID)
        let product = try await store.product(appID: appID, id: input.productID)
        let buyer = try input.appUserID.map(AppUserID.parse)
        if buyer == nil, !CheckoutRules.sellsWithoutAppUserID(app, sandbox: sandbox) { throw CheckoutError.anonymousNotAllowed }
        if let email = input.email, !Formats.isEmail(email) { throw ValidationError(field: "email", reason: "must be an e-mail address") }
        let now = clock.now()
        let checkout = WebCheckout(
            id: "chk_" + SecretToken.generate(byteCount: 16), appID: appID, productID: product.id, appUserID: buyer?.rawValue,
            email: input.email, isSandbox: sandbox, status: .started, createdAt: now, updatedAt: now
        )
        let base = publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let url: String
        if sandbox {
            var components = URLComponents(string: "\(base)/sandbox/p/\(app.id)/\(product.id)")!
            components.queryItems =
                [URLQueryItem(name: "checkout_id", value: checkout.id)]
                + (buyer.map { [URLQueryItem(name: "app_user_id", value: $0.rawValue)] } ?? [])
                + (input.email.map { [URLQueryItem(name: "email", value: $0)] } ?? [])
                + (input.metadata ?? [:]).sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            url = components.string!
            try await store.createWebCheckout(checkout)
        } else {
            guard let stripe else { throw CheckoutError.paidCheckoutUnavailable(hint: "use a sandbox key") }
            var metadata = input.metadata ?? [:]
            metadata["redeem_checkout_id"] = checkout.id
            try await store.createWebCheckout(checkout)
            url = try await stripe.createSession(
                app: app, product: product, buyer: buyer, email: input.email, customParams: metadata,
                successURL: "\(base)/checkout/\(app.id)/\(product.id)/success?session_id={CHECKOUT_SESSION_ID}&checkout_id=\(checkout.id)",
                cancelURL: "\(base)/p/\(app.id)/\(product.id)"
            )
            try await store.advanceWebCheckout(id: checkout.id, to: .inProgress, now: now)
        }
        return JSONResponse(Status(id: checkout.id, status: sandbox ? .started : .inProgress, isSandbox: sandbox, checkoutURL: url), status: .created)
    }

    /// The checkout's state; once it has succeeded, a fresh single-use redemption link on every call.
    @Sendable func status(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Status> {
        let appID = try context.sdkAppID()
        let id = try context.parameters.decoded("checkout_id")
        guard var checkout = try await store.webCheckout(appID: appID, id: id) else { throw StoreError.notFound("checkout '\(id)'") }
        var reply = Status(id: checkout.id, status: checkout.status, isSandbox: checkout.isSandbox)
        if let purchase = try await store.purchase(appID: appID, checkoutReference: checkout.id) {
            if checkout.status != .succeeded {
                try await store.advanceWebCheckout(id: checkout.id, to: .succeeded, now: clock.now())
                checkout.status = .succeeded
            }
            reply = Status(id: checkout.id, status: .succeeded, isSandbox: checkout.isSandbox, purchaseID: purchase.id)
            if let link = try await links.issue(for: purchase, now: clock.now()) {
                reply.redemptionInfo = RedemptionInfo(
                    redemptionURL: link.customSchemeURL, redemptionHTTPSURL: link.httpsURL, expiresAt: link.expiresAt)
            }
        }
        return JSONResponse(reply)
    }
}
