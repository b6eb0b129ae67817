import RedeemCore

/// Why a checkout cannot start; the HTTP layer maps each to a status and code (`APIError.from`).
enum CheckoutError: Error, Equatable {
    /// The identified buyer already holds the product (Core's `CheckoutRules.alreadyOwns`).
    case alreadyOwned(Product)
    /// No app user ID, and the app issues no redemption links in this environment.
    case anonymousNotAllowed
    /// Production checkout needs Stripe; `hint` names the sandbox alternative.
    case paidCheckoutUnavailable(hint: String)

    var message: String {
        switch self {
        case .alreadyOwned(let product) where product.type == .subscription:
            "You already have an active \(product.displayName ?? product.id) subscription."
        case .alreadyOwned(let product): "You already own \(product.displayName ?? product.id)."
        case .anonymousNotAllowed: "This app does not sell without an app user ID in this environment."
        case .paidCheckoutUnavailable(let hint): "Paid checkout is not configured on this server; \(hint)."
        }
    }
}
