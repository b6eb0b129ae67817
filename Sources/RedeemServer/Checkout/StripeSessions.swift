import AsyncHTTPClient
import Foundation
import NIOCore
import RedeemCore
import RedeemStripe

/// Stripe settings: the secret key creates Checkout Sessions; the API base is Stripe's unless a test points elsewhere.
public struct StripeSettings: Sendable {
    public let secretKey: String
    public let apiBase: URL

    public init(secretKey: String, apiBase: URL = URL(string: "https://api.stripe.com")!) throws(ConfigurationError) {
        guard secretKey.hasPrefix("sk_") || secretKey.hasPrefix("rk_") else {
            throw ConfigurationError(setting: Setting.stripeSecretKey.name, reason: "must be a Stripe secret key (sk_…)")
        }
        self.secretKey = secretKey
        self.apiBase = apiBase
    }
}

/// Creates Stripe Checkout Sessions (API version `StripeAPI.version`) for purchase links.
struct StripeSessions: Sendable {
    let settings: StripeSettings
    let client: HTTPClient

    /// A session for `product`, carrying Redeem's metadata so the webhook can grant it; returns Stripe's hosted URL.
    /// `stripePriceID` names the Stripe Price made for the chosen price (else `price_data` inline); `trialDays` starts a
    /// Stripe trial (`subscription_data[trial_period_days]`), marked in the metadata so the webhook records a trial.
    func createSession(
        app: App, product: Product, buyer: AppUserID?, email: String?, customParams: [String: String], successURL: String, cancelURL: String,
        stripePriceID: String? = nil, trialDays: Int? = nil
    ) async throws -> String {
        guard let price = product.price else { throw APIError.conflict("Product '\(product.id)' has no price, so it cannot be sold.") }
        let mode: StripeCheckoutRequest.Mode = try product.period.map { .subscription(try StripeRecurringInterval(iso8601: $0)) } ?? .payment
        var metadata = customParams
        let trial = product.type == .subscription ? trialDays : nil
        if let trial { metadata["redeem_trial_days"] = String(trial) }
        return try await create(
            app: app, product: product, productName: product.displayName ?? product.id, price: price, mode: mode, buyer: buyer,
            email: email, metadata: metadata, successURL: successURL, cancelURL: cancelURL, stripePriceID: stripePriceID, trialDays: trial
        )
    }

    /// The Stripe Price of `price`: the one made before, else a new one (`POST /v1/prices`) with the app's tax code,
    /// handed to `save`. (A changed tax code forgets the app's Prices, as a changed amount forgets its own.)
    func stripePriceID(
        for price: ProductPrice, product: Product, taxCode: String?, save: (String) async throws -> Void
    ) async throws -> String {
        if let id = price.stripePriceID { return id }
        let unitAmount: Int
        do { unitAmount = try price.price.stripeAmount() } catch {
            throw APIError.conflict("This price cannot be charged through Stripe: \(error.reason).")
        }
        let recurring = try product.period.map { try StripeRecurringInterval(iso8601: $0) }
        var request = StripePriceRequest(
            secretKey: settings.secretKey,
            // The same price asks once: a retry after a lost answer gets the same Stripe Price back.
            idempotencyKey: SecretToken.hash(
                "price|\(price.appID)|\(price.productID)|\(price.currency)|\(price.price.amountMicros)|\(product.period ?? "")"
                    + (taxCode.map { "|" + $0 } ?? "")),
            productName: product.displayName ?? product.id, unitAmount: unitAmount, currency: price.currency, recurring: recurring,
            metadata: ["app_id": price.appID, "product_id": price.productID])
        request.taxCode = taxCode
        let http = try request.httpRequest()
        let (status, body) = try await Self.send(http, settings: settings, client: client)
        let id: String
        do { id = try StripePriceRequest.decodeResponse(statusCode: status, body: body) } catch {
            throw APIError(.upstreamRefused, "Stripe refused the price: \(error)")
        }
        try await save(id)
        return id
    }

    /// A one-time payment of a paid offer's price (pay-as-you-go offers are paid for all their periods up front);
    /// the webhook redeems `code` for `claimant` when the payment succeeds.
    func createOfferSession(
        app: App, product: Product, offer: Offer, code: String, claimant: AppUserID, email: String, successURL: String, cancelURL: String
    ) async throws -> String {
        guard let total = offer.charge else { throw APIError.conflict("The offer has no price.") }
        return try await create(
            app: app, product: product, productName: "\(product.displayName ?? product.id) · \(offer.referenceName)", price: total,
            mode: .payment, buyer: claimant, email: email, metadata: ["redeem_offer_code": code], successURL: successURL, cancelURL: cancelURL
        )
    }

    private func create(
        app: App, product: Product, productName: String, price: Price, mode: StripeCheckoutRequest.Mode, buyer: AppUserID?, email: String?,
        metadata extra: [String: String], successURL: String, cancelURL: String, stripePriceID: String? = nil, trialDays: Int? = nil
    ) async throws -> String {
        var metadata = extra
        let unitAmount: Int
        do {
            unitAmount = try price.stripeAmount()
        } catch {
            throw APIError.conflict("This price cannot be charged through Stripe: \(error.reason).")
        }
        metadata["app_id"] = app.id
        metadata["product_id"] = product.id
        if let buyer { metadata["app_user_id"] = buyer.rawValue }
        // The page's language, for the purchase and its e-mails when Stripe's event records it.
        if let language = BuyerTexts.requested?.language { metadata["redeem_language"] = language }
        // The terms Stripe's consent box agrees to, for the purchase's record of the consent (`TermsConsent`).
        if app.requireTermsConsent, let terms = app.termsURL { metadata["redeem_terms_url"] = terms }
        var checkout = StripeCheckoutRequest(
            secretKey: settings.secretKey, idempotencyKey: SecretToken.generate(byteCount: 16), mode: mode,
            productName: productName, unitAmount: unitAmount, currency: price.currency.lowercased(),
            successURL: successURL, cancelURL: cancelURL, customerEmail: email, clientReferenceID: buyer?.rawValue, metadata: metadata
        )
        checkout.automaticTax = app.checkoutTax == .stripeTax
        checkout.managedPayments = app.checkoutTax == .managedPayments
        checkout.allowPromotionCodes = app.allowPromotionCodes
        // A Stripe Price carries the app's tax code on its product; a price sent inline carries it here.
        checkout.taxCode = app.stripeTaxCode
        checkout.priceID = stripePriceID
        checkout.trialPeriodDays = trialDays
        // Stripe's own terms link is the account's, shared by every app: the app's terms go above the pay button, or in
        // Stripe's consent box when the app requires consent.
        let legal = LegalLinks(app)?.stripeText(BuyerTexts.current)
        checkout.submitMessage = legal?.submit
        checkout.termsAcceptanceMessage = legal?.acceptance
        // A link's parameters or an API call's metadata that Stripe would refuse are the caller's to fix, never a 500.
        let request = try Self.built(checkout)
        let (status, body) = try await Self.send(request, settings: settings, client: client)
        do {
            return try StripeCheckoutRequest.decodeResponse(statusCode: status, body: body).url
        } catch {
            throw APIError(.upstreamRefused, "Stripe refused the checkout: \(error)")
        }
    }
}

extension StripeSessions {
    /// The checkout's request; metadata Stripe would refuse (a key over 40 characters) is a validation error.
    static func built(_ checkout: StripeCheckoutRequest) throws -> StripeHTTPRequest {
        do {
            return try checkout.httpRequest()
        } catch {
            guard error.field.hasPrefix("metadata") else { throw error }
            throw ValidationError(field: "metadata", reason: error.reason)
        }
    }

    /// Sends a built request to `settings.apiBase` (Stripe's, or a test's stand-in); returns the status and body.
    static func send(_ request: StripeHTTPRequest, settings: StripeSettings, client: HTTPClient) async throws -> (status: Int, body: [UInt8]) {
        var http = HTTPClientRequest(url: settings.apiBase.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + request.url.path)
        http.method = request.method == "GET" ? .GET : request.method == "DELETE" ? .DELETE : .POST
        for (name, value) in request.headers { http.headers.add(name: name, value: value) }
        if request.method == "POST" { http.body = .bytes(ByteBuffer(bytes: Array(request.bodyData))) }
        let response = try await client.execute(http, timeout: .seconds(20))
        let body = try await response.body.collect(upTo: 1024 * 1024)
        return (Int(response.status.code), Array(body.readableBytesView))
    }

    /// A support call (refund, cancel at period end); Stripe's refusal becomes a 502 naming Stripe's reason.
    func support(_ call: StripeSupportRequest, idempotencyKey: String) async throws {
        let request: StripeHTTPRequest
        do {
            request = try call.httpRequest(secretKey: settings.secretKey, idempotencyKey: idempotencyKey)
        } catch {
            throw APIError.conflict("Stripe has nothing to act on for this purchase (\(error.field) \(error.reason)).")
        }
        let (status, body) = try await Self.send(request, settings: settings, client: client)
        do {
            try StripeSupportRequest.check(statusCode: status, body: body)
        } catch {
            throw APIError(.upstreamRefused, "Stripe refused: \(error.message ?? error.type)")
        }
    }

    /// Switches a subscription's plan to `priceID`: its item is read first (`GET /v1/subscriptions/{id}`), then given the
    /// new Price (`StripeSupportRequest.changePrice`). Stripe's `customer.subscription.updated` applies it. Returns true
    /// when the switch waits for its payment (failed, or to be confirmed by the buyer), so nothing changed yet.
    /// `endTrial`: the subscription is in a free trial, which the switch ends (`StripeSupportRequest.changePrice`).
    func changePlan(subscriptionID: String, priceID: String, endTrial: Bool = false, idempotencyKey: String) async throws -> Bool {
        try await mappingErrors(nothingTo: "act on") {
            guard let item = try await subscription(subscriptionID).itemID else {
                throw APIError.conflict("Stripe's subscription has no item to change.")
            }
            let change = try StripeSupportRequest.changePrice(subscriptionID: subscriptionID, itemID: item, priceID: priceID, endTrial: endTrial)
                .httpRequest(secretKey: settings.secretKey, idempotencyKey: idempotencyKey)
            let (status, body) = try await Self.send(change, settings: settings, client: client)
            return try StripeSupportRequest.awaitsPayment(statusCode: status, body: body)
        }
    }

    /// Switches a subscription to `priceID` when its current period ends (a downgrade): a subscription schedule made
    /// from it (or the one it has) gets two phases, the current Price until the period's end, then the new one
    /// (`StripeSubscriptionSchedule`). Returns the schedule's ID, which releasing drops the switch by.
    /// `trial`: the subscription is in a free trial, kept to its end; the new Price is charged when it ends.
    func schedulePlan(subscriptionID: String, priceID: String, period: String, trial: Bool = false, idempotencyKey: String) async throws -> String {
        try await mappingErrors(nothingTo: "act on") {
            let subscription = try await subscription(subscriptionID)
            guard let current = subscription.priceID else { throw APIError.conflict("Stripe's subscription has no Price to change.") }
            let interval = try StripeRecurringInterval(iso8601: period)
            let made = try await schedule(
                subscription.scheduleID.map { .read(scheduleID: $0) } ?? .create(subscriptionID: subscriptionID), key: idempotencyKey + "-from")
            guard let phase = made.runningPhase else { throw APIError.conflict("Stripe's subscription schedule has no current phase.") }
            return try await schedule(
                .switchAtPeriodEnd(scheduleID: made.id, phase: phase, currentPrice: current, newPrice: priceID, interval: interval, trial: trial),
                key: idempotencyKey
            ).id
        }
    }

    /// Drops a switch waiting for the period's end: the subscription's schedule is released, so it goes on with its
    /// current Price. Nothing to do when the subscription no longer has that schedule (released or done already).
    func releaseSchedule(subscriptionID: String, scheduleID: String, idempotencyKey: String) async throws {
        try await mappingErrors(nothingTo: "act on") {
            guard try await subscription(subscriptionID).scheduleID == scheduleID else { return }
            _ = try await schedule(.release(scheduleID: scheduleID), key: idempotencyKey)
        }
    }

    private func schedule(_ call: StripeSubscriptionSchedule.Request, key: String) async throws -> StripeSubscriptionSchedule {
        let (status, body) = try await Self.send(
            try call.httpRequest(secretKey: settings.secretKey, idempotencyKey: key), settings: settings, client: client)
        return try StripeSubscriptionSchedule.decode(statusCode: status, body: body)
    }

    /// Ends a disputed payment's subscription now, so Stripe charges the buyer nothing more: a schedule holding a switch is
    /// released first (Stripe ends only a subscription no schedule manages). Nothing to do for one already ended, or one
    /// Stripe does not know (404: another account's, or deleted), which would otherwise refuse the event for good.
    func cancelNow(subscriptionID: String, disputeID: String) async throws {
        try await mappingErrors(nothingTo: "cancel") {
            let subscription: StripeSubscription
            do { subscription = try await self.subscription(subscriptionID) } catch let error as StripeAPIError where error.statusCode == 404 {
                return
            }
            guard !["canceled", "incomplete_expired"].contains(subscription.status.rawValue) else { return }
            if let schedule = subscription.scheduleID {
                _ = try await self.schedule(.release(scheduleID: schedule), key: "redeem-\(disputeID)-release")
            }
            let end = try StripeSupportRequest.cancelNow(subscriptionID: subscriptionID)
                .httpRequest(secretKey: settings.secretKey, idempotencyKey: "redeem-\(disputeID)")
            let (status, body) = try await Self.send(end, settings: settings, client: client)
            try StripeSupportRequest.check(statusCode: status, body: body)
        }
    }

    /// A Billing Portal session for a Stripe subscription's customer; its URL, to send the buyer to.
    func billingPortalURL(subscriptionID: String, returnURL: String) async throws -> String {
        try await mappingErrors(nothingTo: "show") {
            let request = try StripeBillingPortal.sessionRequest(
                secretKey: settings.secretKey, customerID: try await subscription(subscriptionID).customerID, returnURL: returnURL,
                idempotencyKey: SecretToken.generate(byteCount: 16))
            let (status, body) = try await Self.send(request, settings: settings, client: client)
            return try StripeBillingPortal.sessionURL(statusCode: status, body: body)
        }
    }

    /// The subscription as Stripe has it now (`GET /v1/subscriptions/{id}`).
    private func subscription(_ id: String) async throws -> StripeSubscription {
        let lookup = try StripeBillingPortal.subscriptionRequest(secretKey: settings.secretKey, subscriptionID: id)
        let (status, body) = try await Self.send(lookup, settings: settings, client: client)
        return try StripeBillingPortal.subscription(statusCode: status, body: body)
    }

    /// A request Redeem cannot make for this purchase is a 409 ("Stripe has nothing to …"); Stripe's refusal a 502.
    private func mappingErrors<T>(nothingTo what: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StripeRequestError {
            throw APIError.conflict("Stripe has nothing to \(what) for this purchase (\(error.field) \(error.reason)).")
        } catch let error as StripeAPIError {
            throw APIError(.upstreamRefused, "Stripe refused: \(error.message ?? error.type)")
        }
    }
}
