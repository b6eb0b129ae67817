import Foundation

/// A product's purchase link (`/p/{app}/{product}`, or the sandbox checkout's `/sandbox/p/…`), optionally for a known
/// app user (`…/{app_user_id}`) and with attribution (`?utm_source=…`, kept with the purchase): what offerings carry as
/// `web_checkout_url`, and what the console, the admin API and `redeem links purchase` give out. Also an offer code's
/// link. Pure: the same values give the same URL.
enum PurchaseLinks {
    /// The attribution parameters a link can carry, in the order they are written.
    static let utmNames = ["utm_source", "utm_medium", "utm_campaign"]

    /// Who the link is for and where it was shared; empty or blank values are left out.
    struct Options: Sendable, Equatable {
        var appUserID: String?
        /// `utm_source`, `utm_medium`, `utm_campaign` by name; other names are ignored.
        var utm: [String: String]

        init(appUserID: String? = nil, utm: [String: String] = [:]) {
            self.appUserID = Self.value(appUserID)
            self.utm = utm.compactMapValues(Self.value).filter { PurchaseLinks.utmNames.contains($0.key) }
        }

        /// From a query or a form: `app_user_id` and the `utm_*` fields.
        init(fields: [String: String]) {
            var utm: [String: String] = [:]
            for name in PurchaseLinks.utmNames { utm[name] = fields[name] }
            self.init(appUserID: fields["app_user_id"], utm: utm)
        }

        /// The `utm_*` pairs in their fixed order.
        var query: [(name: String, value: String)] { PurchaseLinks.utmNames.compactMap { name in utm[name].map { (name, $0) } } }

        private static func value(_ text: String?) -> String? {
            guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
            return trimmed
        }
    }

    /// A product's production and sandbox links for the same options.
    struct Pair: Sendable, Equatable {
        let production: String
        let sandbox: String
    }

    static func url(publicURL: URL, appID: String, productID: String, sandbox: Bool, appUserID: String? = nil) -> String {
        url(publicURL: publicURL, appID: appID, productID: productID, sandbox: sandbox, options: Options(appUserID: appUserID))
    }

    static func url(publicURL: URL, appID: String, productID: String, sandbox: Bool, options: Options) -> String {
        var url = PortalLinks.base(publicURL) + (sandbox ? "/sandbox/p/" : "/p/")
        url += PercentEncoding.component(appID) + "/" + PercentEncoding.component(productID)
        if let appUserID = options.appUserID { url += "/" + PercentEncoding.component(appUserID) }
        let query = options.query.map { PercentEncoding.component($0.name) + "=" + PercentEncoding.component($0.value) }
        if !query.isEmpty { url += "?" + query.joined(separator: "&") }
        return url
    }

    static func pair(publicURL: URL, appID: String, productID: String, options: Options = Options()) -> Pair {
        Pair(
            production: url(publicURL: publicURL, appID: appID, productID: productID, sandbox: false, options: options),
            sandbox: url(publicURL: publicURL, appID: appID, productID: productID, sandbox: true, options: options))
    }

    /// An offer code's link: the offer's page (`/redeem?ctx=offercodes&id={app}&code={code}`, or `/sandbox/redeem…`),
    /// which shows the offer and its price before any payment; the same page a purchase link with `?code=` leads to.
    static func code(publicURL: URL, appID: String, code: String, sandbox: Bool) -> String {
        OfferCodeLinks.redeemPageBase(publicURL: publicURL, appID: appID, sandbox: sandbox) + PercentEncoding.component(code)
    }

    static func codePair(publicURL: URL, appID: String, code: String) -> Pair {
        Pair(
            production: self.code(publicURL: publicURL, appID: appID, code: code, sandbox: false),
            sandbox: self.code(publicURL: publicURL, appID: appID, code: code, sandbox: true))
    }
}
