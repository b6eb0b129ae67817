import Foundation
import Hummingbird
import RedeemCore
import RedeemQR

/// What a checkout link names: the app (with any per-link override), the product, and the buyer if named.
struct CheckoutLink {
    let app: App
    let product: Product
    let buyer: AppUserID?
    /// Prices and dates in the buyer's locale (the request's `Accept-Language`).
    var format: BuyerFormat = .english
    /// The price chosen for this buyer among the product's (its `price` is set to it), the others, and the trial.
    var pricing: LinkPricing? = nil
}

/// The pages every checkout ends on (the hosted success page, or the app's redirect) and the checkout pages' frame,
/// shared by purchase links and offer-code claims.
struct CheckoutPages: Sendable {
    let templates: Templates
    /// Whether e-mail is on: the success page says a receipt was sent only then.
    let emailOn: Bool

    /// The app's chosen next step: the hosted success page, or a redirect carrying what the app needs.
    func afterPurchase(link: CheckoutLink, completed: CheckoutService.Completed, sandbox: Bool) throws -> Response {
        let app = link.app
        if app.afterPurchase != .hosted, let target = app.afterPurchaseURL,
            Formats.isHTTPSURL(target) || (sandbox && Formats.isLocalhostURL(target)), var url = URLComponents(string: target)
        {
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
        // Post, redirect, get: the buyer lands on a page they can reopen (reload, come back, open on their phone) that shows
        // the same link. Its address holds the link's token, as the e-mailed link does; opening it consumes nothing.
        if let redemption = completed.link { return Self.redirect(to: "/checkout/done/\(redemption.token)") }
        return try successPage(link: link, purchase: completed.purchase, showing: .none, now: completed.purchase.purchaseDate)
    }

    /// The redemption step of a success page.
    enum LinkShown {
        case live(RedemptionLink)
        case used
        case expired
        /// Stripe's return opened again: its link was shown the first time, and is not minted twice.
        case shownBefore
        /// The app's policy gives this purchase no link.
        case none
    }

    static func redirect(to location: String) -> Response {
        var response = Response(status: .seeOther)
        response.headers[.location] = location
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// The hosted success page: the receipt, then the redemption step when there is a link (also the console's preview).
    func successPage(
        link: CheckoutLink, purchase: Purchase, showing shown: LinkShown, now: Date, manageURL: String? = nil, framing: HTMLPage.Framing = .none
    ) throws -> Response {
        var page = SuccessPageModel(
            productName: link.product.displayName ?? link.product.id,
            // What was paid: the product's price and period in words, or what an offer charged.
            price: Self.paid(purchase, link: link),
            email: purchase.email ?? "", purchaseDate: link.format.day(purchase.purchaseDate),
            emailed: emailOn && EmailQueue.mails(purchase, app: link.app), free: purchase.price.map { $0.amountMicros == 0 } ?? true,
            manageURL: manageURL)
        switch shown {
        case .live(let redemption):
            page.customSchemeURL = redemption.customSchemeURL
            page.httpsURL = redemption.httpsURL
            page.qrSVG = try QRCode(encoding: redemption.httpsURL).svg(label: link.format.texts["step.qr_label"])
            page.androidIntentURL = LinkPageController.androidIntentURL(app: link.app, token: redemption.token)
            // The time left, not the lifetime: the page may be reopened later.
            page.expiresIn = TimeLeft.words(until: redemption.expiresAt, from: now, texts: link.format.texts)
            page.isValid = true
            page.keepLink = true
        case .used: page.linkUsed = true
        case .expired: page.linkExpired = true
        case .shownBefore: page.linkShownBefore = true
        case .none: break
        }
        return self.page("purchase-success", page, app: link.app, status: .ok, framing: framing)
    }

    /// What was paid: the product's price and period in words, what an offer charged, or a free trial and what follows it.
    static func paid(_ purchase: Purchase, link: CheckoutLink) -> String {
        let texts = link.format.texts
        if purchase.periodType == .trial, purchase.offer == nil {
            guard let price = link.product.price, price.currency == purchase.price?.currency else { return texts["checkout.free_trial"] }
            return texts.format("checkout.free_trial_then", ["price": link.format.product(link.product)])
        }
        guard let paid = purchase.price else { return texts["price.free"] }
        if paid == link.product.price { return link.format.product(link.product) }
        // Bought in another of the product's currencies (`?currency=`): that price, with the product's period.
        if purchase.offer == nil, paid.currency != link.product.price?.currency {
            var product = link.product
            product.price = paid
            return link.format.product(product)
        }
        return link.format.price(paid)
    }

    /// A checkout page in the app's name, icon, support address and store badges.
    func page(
        _ name: String, _ model: some PageModel, app: App, status: HTTPResponse.Status, framing: HTMLPage.Framing = .none,
        scheme: ColorScheme? = nil
    ) -> Response {
        PageRenderer(templates: templates).response(name, model, layout: Branding(app, scheme: scheme), status: status, framing: framing)
    }

    static func encode(_ value: String) -> String { PercentEncoding.component(value) }

    /// A production link on a server without paid checkout: in the app's name, what the buyer can do. Why it is so is
    /// the operator's to read, in the console's setup checks, never the buyer's.
    func notForSale(link: CheckoutLink) -> Response {
        let texts = link.format.texts
        let text = texts.format(link.app.supportEmail == nil ? "sale.off_text" : "sale.off_text_support", ["appName": link.app.name])
        let title = texts.format("sale.off_title", ["productName": link.product.displayName ?? link.product.id])
        return page("message", MessagePage(title: title, text: text), app: link.app, status: .serviceUnavailable)
    }

    /// A refused address, named by the field's label on the checkout and offer pages.
    static var emailRefused: String { BuyerTexts.current["form.receipt_email_refused"] }
}
