import Foundation
import Hummingbird
import RedeemCore
import RedeemQR

/// One link as the products and offers pages show it: the URL (wrapping, with a Copy button), a QR code when the
/// page has room for one, and what it is for.
struct ConsoleLink: Sendable {
    /// "Production" or "Sandbox".
    let label: String
    let url: String
    let qrSVG: String?
    let note: String
    /// Why the link would not sell as things stand (no price, no Stripe on this server), if so. Not named `warning`:
    /// a missing value would read the product's in the template.
    let linkWarning: String?
}

/// The purchase links of the console's products and offers pages, built by `PurchaseLinks` as the admin API and the
/// CLI build them.
enum ConsoleLinks {
    static let sandboxNote = "For testing: it completes without a payment. Do not share it with buyers."
    static let noPrice = "The product has no price yet: this link does not sell it. Set one in its Edit form below."
    static let noStripe = "Stripe is not configured on this server (REDEEM_STRIPE_SECRET_KEY): this link tells buyers it is not on sale."

    /// The products page's link form (`?app_user_id=…&utm_source=…`): its values, whether it was applied, and why an
    /// app user ID the checkout would refuse was left out of the links.
    static func options(_ request: Request) -> (options: PurchaseLinks.Options, form: FormFields, error: String?) {
        // A GET form's query: a typed space arrives as `+`.
        let query = FormBody.fields(request.uri.query ?? "")
        var fields: [String: String] = [:]
        for name in ["app_user_id"] + PurchaseLinks.utmNames { fields[name] = query[name] ?? "" }
        var options = PurchaseLinks.Options(fields: fields)
        var refusal: String?
        if let appUserID = options.appUserID {
            do {
                _ = try AppUserID(validating: appUserID)
            } catch {
                refusal = "App user ID: \(error.reason). The links below are for any buyer."
                options.appUserID = nil
            }
        }
        return (options, FormFields(values: fields, open: fields.values.contains { !$0.isEmpty }), refusal)
    }

    /// A product's production and sandbox links, each with its QR code.
    static func product(_ product: Product, publicURL: URL, options: PurchaseLinks.Options, paidCheckout: Bool) throws -> [ConsoleLink] {
        let pair = PurchaseLinks.pair(publicURL: publicURL, appID: product.appID, productID: product.id, options: options)
        let name = product.displayName ?? product.id
        return [
            ConsoleLink(
                label: "Production", url: pair.production,
                qrSVG: try QRCode(encoding: pair.production).svg(label: "QR code of the production link for \(name)"),
                note: "For buyers: they pay through Stripe Checkout.",
                linkWarning: product.price == nil ? noPrice : paidCheckout ? nil : noStripe),
            ConsoleLink(
                label: "Sandbox", url: pair.sandbox, qrSVG: try QRCode(encoding: pair.sandbox).svg(label: "QR code of the sandbox link for \(name)"),
                note: sandboxNote, linkWarning: nil),
        ]
    }

    /// A custom code's links: the offer's page, production and sandbox (no QR codes, to keep the offers page short).
    static func code(_ code: CustomOfferCode, offer: Offer?, publicURL: URL, paidCheckout: Bool) -> [ConsoleLink] {
        let pair = PurchaseLinks.codePair(publicURL: publicURL, appID: code.appID, code: code.code)
        let unpaid = !paidCheckout && offer?.isPaid ?? true
        return [
            ConsoleLink(
                label: "Production", url: pair.production, qrSVG: nil, note: "For buyers: the offer's page, with the code filled in.",
                linkWarning: unpaid ? "Stripe is not configured on this server: a paid offer cannot be bought through this link." : nil),
            ConsoleLink(label: "Sandbox", url: pair.sandbox, qrSVG: nil, note: sandboxNote, linkWarning: nil),
        ]
    }
}
