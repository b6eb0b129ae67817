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

    static func webhook(_ delivery: WebhookDelivery) -> (type: String, at: String, state: String, attempts: String) {
        let state = delivery.deliveredAt != nil ? "delivered" : delivery.failedAt != nil ? "failed" : delivery.attempts > 0 ? "retrying" : "queued"
        return (delivery.eventType, date(delivery.createdAt), state, count(delivery.attempts, "attempt"))
    }

    /// active, in grace, expired, revoked, refunded or charged back.
    static func state(of purchase: Purchase, now: Date) -> String {
        let access = purchase.access
        if access.refundedAt != nil { return purchase.dispute?.endedAccessAt != nil ? "charged back" : "refunded" }
        if case .revoked = PurchaseTerm(purchase, at: now) { return "revoked" }
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
