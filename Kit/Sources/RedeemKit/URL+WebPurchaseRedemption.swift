import Foundation

extension URL {
    /// This URL as a redemption link, or `nil`. Uses `Redeem.shared`'s accepted hosts and scheme;
    /// before `Redeem.configure`, only `<scheme>://redeem_web_purchase?redemption_token=…` parses.
    public var asWebPurchaseRedemption: WebPurchaseRedemption? {
        Redeem.parseAsWebPurchaseRedemption(self)
    }
}
