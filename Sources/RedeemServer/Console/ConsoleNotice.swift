/// What the customer page says after an action. Only these fixed texts are shown, so a link cannot put words there.
enum ConsoleNotice: String, Sendable {
    case refunded = "refunded"
    case refundRequested = "refund-requested"
    case cancelled = "cancelled"
    case cancelRequested = "cancel-requested"
    case revoked = "revoked"
    case transferred = "transferred"
    case granted = "granted"
    case emailRetried = "email-retried"
    case endpointDisabled = "endpoint-disabled"
    case testSent = "test-sent"
    case replayed = "replayed"
    case keyRevoked = "key-revoked"
    case settingsSaved = "settings-saved"
    case productSaved = "product-saved"
    case entitlementSaved = "entitlement-saved"

    var text: String {
        switch self {
        case .refunded: "Refunded. The purchase no longer grants access, and its CANCELLATION event is queued."
        case .refundRequested: "Stripe was asked to refund the payment. The purchase shows refunded when Stripe's webhook confirms it."
        case .cancelled: "Cancelled: the subscription ends with its current period."
        case .cancelRequested: "Stripe was asked to cancel at the end of the period. The purchase shows it when Stripe's webhook confirms it."
        case .revoked: "Revoked: the grant has ended."
        case .transferred: "Transferred: the purchase now belongs to this customer."
        case .granted: "Granted. The app sees the entitlement on its next CustomerInfo request."
        case .emailRetried: "Queued to be sent again."
        case .endpointDisabled: "The endpoint is disabled: no more events are queued for it."
        case .testSent: "A TEST event is queued for every live endpoint."
        case .replayed: "The delivery is queued to be sent again, with the same event ID."
        case .keyRevoked: "The key is revoked: requests with it are refused from now on."
        case .settingsSaved: "Saved. Pages, e-mails and links use the new settings from now on."
        case .productSaved: "Product saved."
        case .entitlementSaved: "Entitlement added."
        }
    }
}
