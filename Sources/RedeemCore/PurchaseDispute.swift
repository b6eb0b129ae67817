import Foundation

/// A payment the buyer's bank disputed. A chargeback takes the money back, so it ends the purchase's access at once and
/// its subscription with it, as RevenueCat's Web Billing does ("Chargeback detected"); an inquiry (Stripe's `warning_…`
/// statuses) only asks, and changes nothing until it becomes one. Winning the dispute later returns the money, not the
/// access: the subscription is over.
public struct PurchaseDispute: Codable, Hashable, Sendable {
    /// The payment processor's dispute ID (`du_…`).
    public var id: String
    /// When the bank opened it (the processor's `created`).
    public var openedAt: Date
    /// The processor's reason (`fraudulent`, `product_not_received`, `subscription_canceled`, …).
    public var reason: String
    /// The processor's status, as last reported (`needs_response`, `under_review`, `won`, `lost`, …).
    public var status: String
    public var amount: Price?
    /// When it ended the purchase's access (a chargeback of a purchase not refunded before); nil for an inquiry, or for
    /// a dispute of a purchase that a refund had ended already.
    public var endedAccessAt: Date?

    public init(id: String, openedAt: Date, reason: String, status: String, amount: Price?, endedAccessAt: Date? = nil) {
        self.id = id
        self.openedAt = openedAt
        self.reason = reason
        self.status = status
        self.amount = amount
        self.endedAccessAt = endedAccessAt
    }

    /// The bank took the money back (or will, as the dispute stands): every status but an inquiry's.
    public var isChargeback: Bool { !status.hasPrefix("warning_") }

    /// In words, for the console: "fraudulent", "product not received".
    public var reasonLabel: String { reason.replacingOccurrences(of: "_", with: " ") }
    public var statusLabel: String {
        switch status {
        case "warning_closed": "inquiry closed"
        case let status where status.hasPrefix("warning_"): "inquiry, " + status.dropFirst("warning_".count).replacingOccurrences(of: "_", with: " ")
        default: status.replacingOccurrences(of: "_", with: " ")
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, reason, status, amount
        case openedAt = "opened_at"
        case endedAccessAt = "ended_access_at"
    }
}
