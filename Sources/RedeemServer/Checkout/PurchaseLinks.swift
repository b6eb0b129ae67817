import Foundation

/// A product's purchase link (`/p/{app}/{product}`, or the sandbox checkout's `/sandbox/p/…`), optionally for a known
/// app user (`…/{app_user_id}`): what offerings carry as `web_checkout_url`.
enum PurchaseLinks {
    static func url(publicURL: URL, appID: String, productID: String, sandbox: Bool, appUserID: String? = nil) -> String {
        var url = PortalLinks.base(publicURL) + (sandbox ? "/sandbox/p/" : "/p/")
        url += PercentEncoding.component(appID) + "/" + PercentEncoding.component(productID)
        if let appUserID { url += "/" + PercentEncoding.component(appUserID) }
        return url
    }
}
