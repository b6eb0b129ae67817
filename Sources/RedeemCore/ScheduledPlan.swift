import Foundation

/// A plan switch that waits for the current period to end (`PlanChange.Timing.atRenewal`): the subscription renews as
/// `productID` at `price`, the plan's price in the purchase's currency when it was asked for. Stripe holds it as a
/// subscription schedule (`stripeScheduleID`); a sandbox purchase's renewal applies it here. Asking for the current plan
/// again, or setting the subscription to end, drops it.
public struct ScheduledPlan: Codable, Hashable, Sendable {
    public var productID: String
    public var price: Price?
    public var requestedAt: Date
    public var stripeScheduleID: String?

    public init(productID: String, price: Price?, requestedAt: Date, stripeScheduleID: String? = nil) {
        self.productID = productID
        self.price = price
        self.requestedAt = requestedAt
        self.stripeScheduleID = stripeScheduleID
    }

    enum CodingKeys: String, CodingKey {
        case productID = "product_id"
        case price
        case requestedAt = "requested_at"
        case stripeScheduleID = "stripe_schedule_id"
    }
}
