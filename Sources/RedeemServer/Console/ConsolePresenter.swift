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

    static func match(_ match: CustomerMatch, appID: String) -> [String: Any] {
        [
            "appUserID": match.originalAppUserID, "matched": match.matched, "lastSeen": date(match.lastSeen),
            "url": customerURL(appID: appID, customerID: match.customerID),
        ]
    }

    static func customer(_ view: ConsoleService.CustomerView, now: Date) -> [String: Any] {
        let entitlements = view.info.subscriber.entitlements.sorted { $0.key < $1.key }.map { id, entitlement -> [String: Any] in
            let expires = entitlement.expiresDate.flatMap(ISODate.parse)
            let active = expires.map { $0 > now } ?? true
            return [
                "id": id, "product": entitlement.productIdentifier, "active": active,
                "expires": expires.map(date) ?? "never (lifetime)",
            ]
        }
        return [
            "customer": [
                "id": view.customer.id, "appUserID": view.customer.originalAppUserID, "firstSeen": date(view.customer.firstSeen),
                "lastSeen": date(view.customer.lastSeen),
            ],
            "aliases": view.customer.aliases.filter { $0 != view.customer.originalAppUserID },
            "entitlements": entitlements, "noEntitlements": entitlements.isEmpty,
            "purchases": view.purchases.reversed().map { purchase($0.purchase, attempts: $0.attempts, now: now) },
            "noPurchases": view.purchases.isEmpty,
        ]
    }

    static func purchase(_ purchase: Purchase, attempts: [RedemptionAttempt], now: Date) -> [String: Any] {
        var values: [String: Any] = [
            "id": purchase.id, "product": purchase.productID, "store": purchase.store.rawValue, "sandbox": purchase.isSandbox,
            "purchased": date(purchase.purchaseDate), "state": state(of: purchase, now: now), "transaction": purchase.storeTransactionID,
            "attempts": attempts.map { ["at": date($0.createdAt), "appUserID": $0.appUserID, "outcome": outcome($0.outcome)] },
            "noAttempts": attempts.isEmpty, "refundable": purchase.isSandbox && purchase.refundedAt == nil,
            "refunded": purchase.refundedAt != nil,
        ]
        if let email = purchase.email { values["email"] = email }
        if let expires = purchase.expiresDate { values["expires"] = date(expires) }
        if let price = purchase.price { values["price"] = PriceFormat.string(price) }
        return values
    }

    /// active, in grace, expired or refunded.
    static func state(of purchase: Purchase, now: Date) -> String {
        if purchase.refundedAt != nil { return "refunded" }
        guard let expires = purchase.expiresDate else { return "active" }
        if expires > now { return "active" }
        if let grace = purchase.gracePeriodExpiresDate, grace > now { return "in grace" }
        return "expired"
    }

    static func outcome(_ raw: String) -> String { raw.replacingOccurrences(of: "_", with: " ") }

    static func date(_ date: Date) -> String {
        let text = ISODate.format(date)
        return text.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
    }
}
