import Foundation

/// A queued e-mail about a purchase. Its content (and any redemption link in it) is made when it is sent,
/// so no plaintext token is ever stored.
public struct QueuedEmail: Equatable, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        /// The purchase receipt with a "Redeem purchase" link.
        case receipt
        /// A fresh link, after an expired one or on request.
        case newLink = "new_link"
        /// A one-time sign-in link to the customer portal (`/account/{app}`), minted when the e-mail is composed.
        case portalSignIn = "portal_sign_in"
        /// Lifecycle notices (`BuyerNotices`): renewal turned off, a refund, a renewal payment that failed.
        case renewalOff = "renewal_off"
        case refunded
        case paymentFailed = "payment_failed"
        /// The subscription switched plan (`PlanChange`), whoever switched it.
        case planChanged = "plan_changed"
        /// A switch recorded for the period's end (`ScheduledPlan`): the plan kept until then and the one after.
        case planScheduled = "plan_scheduled"
        /// Reminders before a renewal (`RenewalReminder`): a yearly subscription's, a long free trial's end.
        case renewalReminder = "renewal_reminder"
        case trialEnding = "trial_ending"
        /// A paid renewal, and a free trial's first charge: what was paid and when it renews, as RevenueCat's Web Billing
        /// confirms each renewal.
        case renewed
        case trialConverted = "trial_converted"
        /// The buyer's bank took a payment back (a chargeback, `PurchaseDispute`): the purchase ended with it.
        case chargeback

        /// In words, for the console.
        public var label: String {
            switch self {
            case .receipt: "receipt"
            case .newLink: "new link"
            case .portalSignIn: "portal sign-in"
            case .renewalOff: "renewal off"
            case .refunded: "refund"
            case .paymentFailed: "payment failed"
            case .planChanged: "plan changed"
            case .planScheduled: "plan scheduled"
            case .renewalReminder: "renewal reminder"
            case .trialEnding: "trial ending"
            case .renewed: "renewed"
            case .trialConverted: "trial converted"
            case .chargeback: "chargeback"
            }
        }
    }

    public var id: String
    public var appID: String
    public var purchaseID: String
    public var kind: Kind
    public var recipient: String
    public var createdAt: Date
    public var attempts: Int
    /// The language it is written in (`de`); nil for English.
    public var language: String?

    public init(
        id: String, appID: String, purchaseID: String, kind: Kind, recipient: String, createdAt: Date, attempts: Int = 0,
        language: String? = nil
    ) {
        self.id = id
        self.appID = appID
        self.purchaseID = purchaseID
        self.kind = kind
        self.recipient = recipient
        self.createdAt = createdAt
        self.attempts = attempts
        self.language = language
    }
}
