import Foundation
import RedeemCore
import RedeemStore

/// The console's values as its templates show them: dates in UTC words, states by name.
enum ConsolePresenter {
    static func searchURL(appID: String, query: String, page: Int) -> String {
        var components = URLComponents()
        components.path = "/console/apps/\(appID)"
        components.queryItems = [URLQueryItem(name: "q", value: query), URLQueryItem(name: "page", value: String(page))]
        return components.string ?? components.path
    }

    static func customerURL(appID: String, customerID: String) -> String { "/console/apps/\(appID)/customers/\(customerID)" }

    static func match(_ match: CustomerMatch, appID: String) -> SearchPage.Result {
        SearchPage.Result(
            appUserID: match.originalAppUserID, matched: match.matched, lastSeen: date(match.lastSeen),
            url: customerURL(appID: appID, customerID: match.customerID))
    }

    static func customer(_ view: ConsoleService.CustomerView, now: Date) -> CustomerPage {
        let entitlements = view.info.subscriber.entitlements.sorted { $0.key < $1.key }.map { id, entitlement in
            let expires = entitlement.expiresDate.flatMap(ISODate.parse)
            let grace = entitlement.gracePeriodExpiresDate.flatMap(ISODate.parse)
            let active = AccessFacts(expiresDate: expires, gracePeriodExpiresDate: grace).isActive(at: now)
            return CustomerPage.Entitlement(
                id: id, product: entitlement.productIdentifier, active: active, expires: expires.map(date) ?? "never (lifetime)")
        }
        // The person first: the address the app set ($email), else the latest one a purchase was made with.
        let email =
            view.attributes.first { $0.key == "$email" && !$0.value.isEmpty }?.value
            ?? view.purchases.reversed().lazy.compactMap(\.purchase.email).first
        return CustomerPage(
            customer: CustomerPage.Person(
                id: view.customer.id, appUserID: view.customer.originalAppUserID, email: email, firstSeen: date(view.customer.firstSeen),
                lastSeen: date(view.customer.lastSeen)),
            aliases: view.customer.aliases.filter { $0 != view.customer.originalAppUserID },
            attributes: view.attributes.map(attribute),
            entitlements: entitlements, noEntitlements: entitlements.isEmpty,
            purchases: view.purchases.reversed().map {
                purchase($0, now: now, productName: view.productNames[$0.purchase.productID], stripeOn: view.stripeOn, mailOn: view.mailOn)
            },
            noPurchases: view.purchases.isEmpty,
            grantEntitlements: view.entitlementIDs, mayGrant: !view.entitlementIDs.isEmpty,
            durations: PromotionalDuration.allCases.map {
                Choice(value: $0.rawValue, label: $0.rawValue.replacingOccurrences(of: "_", with: " "))
            })
    }

    static func purchase(
        _ detail: SupportService.PurchaseDetail, now: Date, productName: String? = nil, stripeOn: Bool = true, mailOn: Bool = false
    ) -> CustomerPage.PurchaseRow {
        let purchase = detail.purchase
        return CustomerPage.PurchaseRow(
            id: purchase.id, product: productName ?? purchase.productID, productID: purchase.productID,
            store: store(purchase.store, sandbox: purchase.isSandbox), sandbox: purchase.isSandbox,
            fastClock: SandboxClock.runs(purchase),
            purchased: date(purchase.purchaseDate), state: state(of: purchase, now: now), transaction: purchase.storeTransactionID,
            isGrant: purchase.store == .promotional, refunded: purchase.refundedAt != nil,
            // An action that goes through Stripe is offered only when Stripe is configured; the page says why otherwise.
            refundable: offered(SupportRules.refund(purchase), stripeOn: stripeOn),
            cancellable: offered(SupportRules.cancelAtPeriodEnd(purchase, now: now), stripeOn: stripeOn),
            resumable: offered(SupportRules.resume(purchase, now: now), stripeOn: stripeOn),
            needsStripe: !stripeOn && purchase.store == .stripe && purchase.refundedAt == nil,
            revocable: PromotionalGrant.revokeRefusal(purchase, now: now) == nil,
            transferable: purchase.store != .promotional && purchase.refundedAt == nil,
            linkable: purchase.store != .promotional && purchase.refundedAt == nil,
            emailable: mailOn && purchase.email != nil,
            attempts: detail.attempts.map {
                CustomerPage.Attempt(at: date($0.createdAt), appUserID: $0.appUserID, outcome: outcome($0.outcome))
            },
            links: detail.links.map(link), emails: detail.emails.map(email), webhooks: detail.webhooks.map(webhook),
            email: purchase.email, expires: purchase.expiresDate.map(date), cancelledAt: purchase.unsubscribeDetectedAt.map(date),
            price: purchase.price.map(PriceFormat.string))
    }

    /// A subscriber attribute; `$email` says what it is used for, which depends on who set it: search matches it
    /// either way, the portal and new-link requests only when the app's secret key set it.
    static func attribute(_ attribute: SubscriberAttributeRecord) -> CustomerPage.Attribute {
        let use: String? =
            attribute.key != "$email"
            ? nil
            : attribute.fromBackend
                ? "Used by search, the customer portal and new-link requests."
                : "Used by search only: the portal and new-link requests need it set with the secret key."
        return CustomerPage.Attribute(
            key: attribute.key, value: attribute.value, updated: date(attribute.updatedAt),
            source: attribute.fromBackend ? "secret key" : "app", trusted: attribute.fromBackend, use: use)
    }

    static func link(_ link: IssuedLink) -> CustomerPage.Link {
        CustomerPage.Link(
            issued: date(link.createdAt), expires: date(link.expiresAt), opened: link.openedAt.map(date), redeemed: link.redeemedAt.map(date),
            redeemedBy: link.redeemedBy)
    }

    static func email(_ sent: SentEmail) -> CustomerPage.Email {
        CustomerPage.Email(
            id: sent.email.id, kind: sent.email.kind.label, to: sent.email.recipient, queued: date(sent.email.createdAt), state: sent.state,
            attempts: count(sent.email.attempts, "attempt"), retryable: sent.sentAt == nil && sent.email.attempts > 0, error: sent.lastError)
    }

    /// A row of the delivery log: state, event, when, and the latest attempt's answer and latency.
    static func delivery(_ entry: DeliveryLogEntry) -> WebhooksPage.Delivery {
        let attempt = entry.lastAttempt
        let delivery = webhook(entry.delivery)
        return WebhooksPage.Delivery(
            type: delivery.type, at: delivery.at, state: delivery.state, attempts: delivery.attempts, id: entry.delivery.id,
            eventID: entry.delivery.eventID,
            answer: attempt.map { $0.statusCode.map { "HTTP \($0)" } ?? ($0.error ?? "no answer") }, ms: attempt?.durationMs,
            ok: attempt.map { $0.statusCode.map { (200..<300).contains($0) } ?? false } ?? false)
    }

    static func webhook(_ delivery: WebhookDelivery) -> CustomerPage.Webhook {
        let state = delivery.deliveredAt != nil ? "delivered" : delivery.failedAt != nil ? "failed" : delivery.attempts > 0 ? "retrying" : "queued"
        return CustomerPage.Webhook(
            type: delivery.eventType, at: date(delivery.createdAt), state: state, attempts: count(delivery.attempts, "attempt"))
    }

    /// active, in grace, expired or refunded.
    static func state(of purchase: Purchase, now: Date) -> String {
        let access = purchase.access
        if access.refundedAt != nil { return "refunded" }
        if access.isInGracePeriod(at: now) { return "in grace" }
        return access.isActive(at: now) ? "active" : "expired"
    }

    static func outcome(_ raw: String) -> String { raw.replacingOccurrences(of: "_", with: " ") }

    static func offered(_ route: Result<SupportRules.Route, SupportRules.Refusal>, stripeOn: Bool) -> Bool {
        switch route {
        case .success(.here): true
        case .success(.stripe): stripeOn
        case .failure: false
        }
    }

    /// "1 attempt", "3 attempts".
    static func count(_ value: Int, _ noun: String) -> String { "\(value) \(noun)\(value == 1 ? "" : "s")" }

    /// Where a purchase was made, in words.
    static func store(_ store: Store, sandbox: Bool) -> String {
        switch store {
        case .rcBilling: sandbox ? "Sandbox checkout (test, no payment)" : "Web checkout"
        case .stripe: "Stripe Checkout"
        case .external: "Recorded through the server API"
        case .promotional: "Granted (promotional)"
        default: store.rawValue.replacingOccurrences(of: "_", with: " ").capitalized
        }
    }

    static func date(_ date: Date) -> String {
        let text = ISODate.format(date)
        return text.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
    }
}
