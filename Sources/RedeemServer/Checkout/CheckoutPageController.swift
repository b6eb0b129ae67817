import Foundation
import Hummingbird
import RedeemCore
import RedeemQR
import RedeemStore

/// Web purchase links and the built-in sandbox checkout.
///
/// `/p/{app_id}/{product_id}` is the production link, `/sandbox/p/{app_id}/{product_id}` the sandbox one; either takes the
/// buyer's app user ID as a last path segment or `?app_user_id=`. `?email=` prefills and locks the address; any other
/// query parameter is kept with the purchase and passed on.
struct CheckoutPageController {
    let store: any CheckoutStore
    let clock: any RedeemClock
    let templates: Templates
    let pipeline: CheckoutService
    let publicURL: URL
    let stripe: StripeSessions?
    let links: RedemptionLinkIssuer

    static let reserved: Set<String> = ["app_user_id", "email", "checkout_id", "after_purchase", "after_purchase_url"]

    /// A link may override the app's after-purchase step with `after_purchase` (and `after_purchase_url`).
    static func overriding(_ app: App, with fields: [String: String], now: Date) throws -> App {
        guard fields["after_purchase"] != nil || fields["after_purchase_url"] != nil else { return app }
        var changes = AppChanges()
        changes.afterPurchase = fields["after_purchase"]
        changes.afterPurchaseURL = fields["after_purchase_url"]
        var copy = app
        try changes.apply(to: &copy, now: now)
        return copy
    }

    static func overrideFields(_ request: Request) -> [String: String] {
        var fields: [String: String] = [:]
        for name in ["after_purchase", "after_purchase_url"] { fields[name] = request.uri.queryParameters[Substring(name)].map(String.init) }
        return fields
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        for path in ["/sandbox/p/{app_id}/{product_id}", "/sandbox/p/{app_id}/{product_id}/{app_user_id}"] {
            router.get(RouterPath(path), use: sandboxPage)
            router.post(RouterPath(path), use: sandboxPay)
        }
        for path in ["/p/{app_id}/{product_id}", "/p/{app_id}/{product_id}/{app_user_id}"] {
            router.get(RouterPath(path), use: productionPage)
        }
        router.get("/checkout/{app_id}/{product_id}/success", use: paidReturn)
    }

    struct Link {
        let app: App
        let product: Product
        let buyer: AppUserID?
    }

    /// The app, product and buyer a link names; 404 for unknown ones, 403 when the anonymous form is not allowed.
    func resolve(_ request: Request, context: AppRequestContext, sandbox: Bool, fields: [String: String] = [:]) async throws -> Link {
        let app = try await store.app(id: try context.parameters.decoded("app_id"))
        let product = try await store.product(appID: app.id, id: try context.parameters.decoded("product_id"))
        let rawUser = context.parameters.get("app_user_id").map { $0.removingPercentEncoding ?? $0 }
            ?? fields["app_user_id"] ?? request.uri.queryParameters["app_user_id"].map(String.init)
        let buyer = try rawUser.flatMap { $0.isEmpty ? nil : try AppUserID.parse($0) }
        if buyer == nil, !app.redemptionLinkPolicy.allowsLinks(sandbox: sandbox) {
            throw APIError.forbidden("This app does not sell without an app user ID in this environment.")
        }
        return Link(app: app, product: product, buyer: buyer)
    }

    /// Production links go to Stripe Checkout; the webhook records the purchase, and Stripe sends the buyer back to `paidReturn`.
    @Sendable func productionPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let link = try await resolve(request, context: context, sandbox: false)
        guard let stripe else {
            throw APIError(.serviceUnavailable, code: 7503, message: "Paid checkout is not configured on this server; use the sandbox link.")
        }
        if let buyer = link.buyer, !buyer.isAnonymous, link.product.type != .consumable,
           let customer = try await store.findCustomer(appID: link.app.id, appUserID: buyer),
           try await store.purchases(customerID: customer.id).contains(where: { $0.productID == link.product.id && $0.isActive(at: clock.now()) }) {
            throw APIError.conflict("You already have \(link.product.displayName ?? link.product.id).")
        }
        var params: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where !Self.reserved.contains(String(name)) { params[String(name)] = String(value) }
        let overrides = Self.overrideFields(request)
        _ = try Self.overriding(link.app, with: overrides, now: clock.now())
        let base = publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let overrideQuery = overrides.sorted { $0.key < $1.key }.map { "&\($0.key)=\(Self.encode($0.value))" }.joined()
        let url = try await stripe.createSession(
            app: link.app, product: link.product, buyer: link.buyer, email: request.uri.queryParameters["email"].map(String.init),
            customParams: params,
            successURL: "\(base)/checkout/\(link.app.id)/\(link.product.id)/success?session_id={CHECKOUT_SESSION_ID}\(overrideQuery)",
            cancelURL: base + request.uri.path
        )
        var response = Response(status: .seeOther)
        response.headers[.location] = url
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// Stripe's return: the success step once the webhook has recorded the purchase, a self-refreshing page until then.
    @Sendable func paidReturn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let stored = try await store.app(id: try context.parameters.decoded("app_id"))
        let app = try Self.overriding(stored, with: Self.overrideFields(request), now: clock.now())
        let product = try await store.product(appID: app.id, id: try context.parameters.decoded("product_id"))
        let link = Link(app: app, product: product, buyer: nil)
        guard let session = request.uri.queryParameters["checkout_id"] ?? request.uri.queryParameters["session_id"],
              (8...255).contains(session.count),
              let purchase = try await store.purchase(appID: app.id, checkoutReference: String(session)) else {
            return page("checkout-pending", status: .ok, link: link, extra: [:])
        }
        let redemption = try await links.issue(for: purchase, now: clock.now())
        let owner = try await store.originalAppUserID(customerID: purchase.customerID)
        let completed = CheckoutService.Completed(
            purchase: purchase, link: redemption, buyer: (try? AppUserID(validating: owner ?? "")) ?? AppUserID.anonymous()
        )
        return try afterPurchase(link: link, completed: completed, sandbox: purchase.isSandbox)
    }

    @Sendable func sandboxPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let link = try await resolve(request, context: context, sandbox: true)
        var checkoutID = SecretToken.generate(byteCount: 16)
        // A checkout started through the JSON API keeps its ID, so its status shows the purchase.
        if let given = request.uri.queryParameters["checkout_id"],
           let started = try await store.webCheckout(appID: link.app.id, id: String(given)), started.isSandbox {
            checkoutID = started.id
            try await store.advanceWebCheckout(id: started.id, to: .inProgress, now: clock.now())
        }
        var hidden: [[String: String]] = [["name": "checkout_id", "value": checkoutID]]
        let overrides = Self.overrideFields(request)
        _ = try Self.overriding(link.app, with: overrides, now: clock.now())  // refuse a bad override before the buyer pays
        for (name, value) in overrides { hidden.append(["name": name, "value": value]) }
        if let buyer = link.buyer, context.parameters.get("app_user_id") == nil { hidden.append(["name": "app_user_id", "value": buyer.rawValue]) }
        for (name, value) in request.uri.queryParameters where !Self.reserved.contains(String(name)) {
            hidden.append(["name": "param." + String(name), "value": String(value)])
        }
        var extra: [String: Any] = ["action": request.uri.path, "hidden": hidden]
        if let email = request.uri.queryParameters["email"] {
            extra["email"] = String(email)
            extra["emailLocked"] = true
        }
        return page("sandbox-checkout", status: .ok, link: link, extra: extra)
    }

    @Sendable func sandboxPay(_ request: Request, context: AppRequestContext) async throws -> Response {
        let fields = try await FormBody.parse(request)
        let link = try await resolve(request, context: context, sandbox: true, fields: fields)
        let email = (fields["email"] ?? "").trimmingCharacters(in: .whitespaces)
        guard Formats.isEmail(email), let checkoutID = fields["checkout_id"], (16...64).contains(checkoutID.count) else {
            throw ValidationError(field: "email", reason: "must be an e-mail address")
        }
        var params: [String: String] = [:]
        for (name, value) in fields where name.hasPrefix("param.") { params[String(name.dropFirst(6))] = value }
        let app = try Self.overriding(link.app, with: fields, now: clock.now())
        let completed = try await pipeline.complete(
            app: link.app, product: link.product, buyer: link.buyer, email: email, sandbox: true, store: .rcBilling,
            storeTransactionID: nil, customParams: params, idempotencyKey: checkoutID
        )
        return try afterPurchase(link: Link(app: app, product: link.product, buyer: link.buyer), completed: completed, sandbox: true)
    }

    /// The app's chosen next step: the hosted success page, or a redirect carrying what the app needs.
    func afterPurchase(link: Link, completed: CheckoutService.Completed, sandbox: Bool) throws -> Response {
        let app = link.app
        if app.afterPurchase != .hosted, let target = app.afterPurchaseURL,
           Formats.isHTTPSURL(target) || (sandbox && Formats.isLocalhostURL(target)), var url = URLComponents(string: target) {
            var items = url.queryItems ?? []
            if app.afterPurchase == .redirect {
                if let redemption = completed.link { items.append(URLQueryItem(name: "redeem_url", value: redemption.customSchemeURL)) }
                items.append(URLQueryItem(name: "app_user_id", value: completed.buyer.rawValue))
            } else {
                items.append(URLQueryItem(name: "app_user_id", value: completed.buyer.rawValue))
                items.append(URLQueryItem(name: "email", value: completed.purchase.email))
                let idName = link.product.type == .subscription ? "stripe_subscription_id" : "checkout_session_id"
                items.append(URLQueryItem(name: idName, value: completed.purchase.storeTransactionID))
                for (name, value) in completed.purchase.customParams.sorted(by: { $0.key < $1.key }) {
                    items.append(URLQueryItem(name: name, value: value))
                }
            }
            // Every value fully encoded: `+`, `&`, `=` and `?` inside values must not read as separators.
            url.percentEncodedQuery = items.map { "\(Self.encode($0.name))=\(Self.encode($0.value ?? ""))" }.joined(separator: "&")
            var response = Response(status: .seeOther)
            response.headers[.location] = url.string
            response.headers[.cacheControl] = "no-store"
            return response
        }
        var extra: [String: Any] = [
            "productName": link.product.displayName ?? link.product.id,
            "price": completed.purchase.price.map(PriceFormat.string) ?? "Free",
            "email": completed.purchase.email ?? "",
            "purchaseDate": ISODate.format(completed.purchase.purchaseDate),
            "emailed": pipeline.emailQueue.mail != nil && completed.purchase.email != nil,
        ]
        if let redemption = completed.link {
            extra["customSchemeURL"] = redemption.customSchemeURL
            extra["httpsURL"] = redemption.httpsURL
            extra["qrSVG"] = try QRCode(encoding: redemption.httpsURL).svg(label: "QR code of your redemption link")
            extra["androidIntentURL"] = LinkPageController.androidIntentURL(app: app, token: redemption.token)
            extra["expiresInMinutes"] = app.redemptionLinkLifetimeSeconds / 60
            extra["isValid"] = true
        }
        return page("purchase-success", status: .ok, link: link, extra: extra)
    }

    func page(_ name: String, status: HTTPResponse.Status, link: Link, extra: [String: Any]) -> Response {
        let nonce = SecretToken.generate(byteCount: 16)
        var context: [String: Any] = [
            "appName": link.app.name, "cspNonce": nonce, "productName": link.product.displayName ?? link.product.id,
            "price": link.product.price.map { PriceFormat.string($0) + (link.product.period.map { " / \($0)" } ?? "") } ?? "Free",
        ]
        context["iconURL"] = link.app.iconURL
        context["appStoreURL"] = link.app.appStoreURL
        context["playStoreURL"] = link.app.playStoreURL
        context["supportEmail"] = link.app.supportEmail
        for (key, value) in extra { context[key] = value }
        return HTMLPage.response(templates.render(name, context), status: status, nonce: nonce)
    }

    static func encode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}

/// An HTML response with the headers every hosted page carries.
enum HTMLPage {
    static func response(_ html: String, status: HTTPResponse.Status, nonce: String) -> Response {
        var response = Response(status: status, body: .init(byteBuffer: ByteBuffer(string: html)))
        response.headers[.contentType] = "text/html; charset=utf-8"
        response.headers[.cacheControl] = "no-store"
        response.headers[.init("Referrer-Policy")!] = "no-referrer"
        response.headers[.init("X-Content-Type-Options")!] = "nosniff"
        response.headers[.init("Content-Security-Policy")!] =
            "default-src 'none'; style-src 'nonce-\(nonce)'; script-src 'nonce-\(nonce)'; img-src https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
        return response
    }
}
