/// Every error code Redeem answers with: the one table that the server's errors, `docs/errors.md` and RedeemKit's
/// decoder are checked against. Clients (RevenueCat's SDKs among them) read `code`, never the status, so codes that
/// RevenueCat also has keep RevenueCat's number.
public enum ErrorCode: Int, CaseIterable, Sendable {
    case malformedRequest = 7000
    case invalidField = 7001
    case notFound = 7004
    case conflict = 7009
    case emptyAppUserID = 7220
    case unauthenticated = 7225
    case forbidden = 7226
    case promotionalOfferNotSigned = 7232
    case invalidAppUserID = 7256
    case invalidSubscriberAttributes = 7263
    case invalidSubscriberAttributesBody = 7264
    case stripeSignatureRejected = 7400
    case methodNotAllowed = 7405
    case unsupportedMediaType = 7415
    case tooManyRequests = 7429
    case internalError = 7500
    case upstreamRefused = 7502
    case unavailable = 7503
    case invalidRedemptionToken = 7849
    case purchaseBelongsToOtherUser = 7852
    case expiredRedemptionToken = 7853
    case subscriptionExpired = 7854
    case offerCodeInvalid = 7860
    case offerCodeExpired = 7861
    case offerCodeInactive = 7862
    case offerCodeExhausted = 7863
    case offerCodeAlreadyRedeemed = 7864
    case offerCodeNotEligible = 7865
    case offerCodeWouldDowngrade = 7866
    case offerCodeQuotaReached = 7867
    case offerCodePaymentRequired = 7868
    case storePurchasesNotValidated = 7990

    /// The HTTP status the code is sent with.
    public var status: Int {
        switch self {
        case .malformedRequest, .invalidAppUserID, .stripeSignatureRejected, .invalidRedemptionToken, .offerCodeInvalid, .emptyAppUserID,
            .invalidSubscriberAttributes, .invalidSubscriberAttributesBody, .storePurchasesNotValidated:
            400
        case .invalidField: 422
        case .notFound: 404
        case .conflict, .offerCodeExhausted, .offerCodeAlreadyRedeemed: 409
        case .unauthenticated: 401
        case .forbidden, .promotionalOfferNotSigned, .purchaseBelongsToOtherUser, .expiredRedemptionToken, .subscriptionExpired, .offerCodeExpired,
            .offerCodeInactive,
            .offerCodeNotEligible, .offerCodeWouldDowngrade, .offerCodeQuotaReached:
            403
        case .tooManyRequests: 429
        case .unsupportedMediaType: 415
        case .methodNotAllowed: 405
        case .internalError: 500
        case .upstreamRefused: 502
        case .unavailable: 503
        case .offerCodePaymentRequired: 402
        }
    }

    /// What it means, as docs/errors.md says it.
    public var meaning: String {
        switch self {
        case .malformedRequest:
            "malformed request: body is not JSON, a field is missing or has the wrong type, a required header is missing, or the request is not valid HTTP"
        case .invalidField: "a field is well-formed JSON but invalid (`field` says which, `message` says why)"
        case .notFound: "the app, product, entitlement, key or purchase does not exist"
        case .conflict: "conflict: the thing already exists, or an idempotency key was reused with a different body"
        case .unauthenticated: "missing or unknown API key"
        case .forbidden:
            "the key is valid but may not use this route (a public key on an admin route, another app's secret key, the admin key on an SDK route)"
        case .promotionalOfferNotSigned:
            "`POST /v1/offers`: App Store promotional offers are not signed here (that needs the app's App Store Connect key); sent as each offer's `signature_error` in a 200, RevenueCat's `userIneligibleForPromoOffer`"
        case .emptyAppUserID: "an empty app user ID (RevenueCat's code)"
        case .invalidAppUserID: "invalid app user ID (RevenueCat's `invalidAppUserId`)"
        case .invalidSubscriberAttributes:
            "subscriber attributes: some keys or values were refused, `attribute_errors` lists them (`key_name`, `message`); the others were saved (RevenueCat's code)"
        case .invalidSubscriberAttributesBody:
            "subscriber attributes: the body has no `attributes` object, or an entry is not `{value, updated_at_ms}` (RevenueCat's code)"
        case .storePurchasesNotValidated:
            "`POST /v1/receipts`: Redeem does not validate App Store or Google Play purchases (docs/revenuecat-sdks.md says which apps move whole); our own code"
        case .methodNotAllowed: "the path exists, but not for this method; `Allow` lists the methods it has"
        case .unsupportedMediaType: "a JSON route was sent a body that is not `Content-Type: application/json`"
        case .stripeSignatureRejected: "`POST /webhooks/stripe`: the `Stripe-Signature` header does not verify"
        case .tooManyRequests: "too many attempts; `Retry-After` says when to try again"
        case .internalError: "unexpected server error; it is logged"
        case .upstreamRefused: "Stripe refused to create the checkout, or the mail server refused a Customer Center support ticket"
        case .unavailable:
            "unavailable: the database is unreachable or restarting (with `Retry-After`), paid checkout is not configured, the mail server could not take a support ticket, or (to Stripe) an event arrived before the subscription it names"
        case .invalidRedemptionToken: "redemption: invalid or unknown token (RevenueCat's code)"
        case .purchaseBelongsToOtherUser:
            "redemption: the purchase belongs to another user — the token was used by someone else, or the app keeps purchases with their original owner (RevenueCat's code)"
        case .expiredRedemptionToken:
            "redemption: the link has expired; `purchase_redemption_error_info` has `obfuscated_email` (when the purchase has one) and `resent` (RevenueCat's code)"
        case .subscriptionExpired:
            "redemption: the purchase was redeemed, but its subscription has lapsed; `customer_info` holds the user's CustomerInfo (Superwall's `expiredSubscription`; our own code)"
        case .offerCodeInvalid: "offer code: invalid — no such code, or not a code at all (the two are never told apart)"
        case .offerCodeExpired: "offer code: expired (the batch's or custom code's expiry, or the offer's window has ended)"
        case .offerCodeInactive: "offer code: inactive — the offer, batch or custom code is switched off, or the offer's window has not started"
        case .offerCodeExhausted: "offer code: exhausted — the custom code's cap is reached"
        case .offerCodeAlreadyRedeemed: "offer code: already redeemed — this one-time code was used, or this customer already redeemed this offer"
        case .offerCodeNotEligible:
            "offer code: the customer is not eligible (new / existing / expired for the product's subscription group; \"never bought it\" for one-time products)"
        case .offerCodeWouldDowngrade:
            "offer code: would downgrade — the customer has an active subscription at a higher level of the same group (in-app route only; the web page schedules the downgrade)"
        case .offerCodeQuotaReached: "offer code: the app's quarterly redemption quota is used up"
        case .offerCodePaymentRequired:
            "offer code: the offer has a price; the body's `redeem_url` is the web page that takes payment (the SDK route grants free offers only)"
        }
    }
}
