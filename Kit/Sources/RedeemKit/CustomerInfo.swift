import Foundation

/// A customer's purchases and entitlements, as returned by `GET /v1/subscribers/{id}` and by
/// the redeem endpoints. Decoding is tolerant: unknown keys and values are kept or ignored,
/// and a malformed entry is dropped rather than failing the whole response.
public struct CustomerInfo: Hashable, Sendable {
    /// The server time of the response; entitlement activity is computed against it.
    public let requestDate: Date
    public let originalAppUserID: String
    public let firstSeen: Date?
    public let originalPurchaseDate: Date?
    public let managementURL: URL?
    /// All entitlements by identifier, active or not.
    public let entitlements: [String: EntitlementInfo]
    /// Subscriptions by product identifier.
    public let subscriptions: [String: SubscriptionInfo]
    /// One-time purchases by product identifier.
    public let nonSubscriptions: [String: [NonSubscriptionTransaction]]

    /// The active entitlements by identifier.
    public var activeEntitlements: [String: EntitlementInfo] {
        entitlements.filter { $0.value.isActive }
    }

    /// Identifiers of the active entitlements.
    public var activeEntitlementIDs: Set<String> {
        Set(activeEntitlements.keys)
    }

    /// A copy with entitlement activity recomputed at `date` (used when serving a cached copy).
    func evaluated(at date: Date) -> CustomerInfo {
        CustomerInfo(
            requestDate: requestDate,
            originalAppUserID: originalAppUserID,
            firstSeen: firstSeen,
            originalPurchaseDate: originalPurchaseDate,
            managementURL: managementURL,
            entitlements: entitlements.mapValues { $0.evaluated(at: date) },
            subscriptions: subscriptions,
            nonSubscriptions: nonSubscriptions
        )
    }

    /// Whether some entitlement is still unexpired at `date`.
    func hasUnexpiredEntitlement(at date: Date) -> Bool {
        entitlements.values.contains {
            EntitlementInfo.isActive(expiration: $0.expirationDate, gracePeriodEnd: $0.gracePeriodExpirationDate, at: date)
        }
    }
}

extension CustomerInfo: Codable {
    private enum CodingKeys: String, CodingKey {
        case requestDate = "request_date"
        case requestDateMillis = "request_date_ms"
        case subscriber
    }

    private enum SubscriberKeys: String, CodingKey {
        case originalAppUserID = "original_app_user_id"
        case firstSeen = "first_seen"
        case originalPurchaseDate = "original_purchase_date"
        case managementURL = "management_url"
        case entitlements
        case subscriptions
        case nonSubscriptions = "non_subscriptions"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let date = c.lenient(Date.self, forKey: .requestDate) {
            requestDate = date
        } else if let millis = c.lenient(Double.self, forKey: .requestDateMillis) {
            requestDate = Date(timeIntervalSince1970: millis / 1000)
        } else {
            throw DecodingError.keyNotFound(CodingKeys.requestDate, .init(codingPath: c.codingPath, debugDescription: "No request date"))
        }

        let s = try c.nestedContainer(keyedBy: SubscriberKeys.self, forKey: .subscriber)
        originalAppUserID = s.lenientString(forKey: .originalAppUserID) ?? ""
        firstSeen = s.lenient(Date.self, forKey: .firstSeen)
        originalPurchaseDate = s.lenient(Date.self, forKey: .originalPurchaseDate)
        managementURL = s.lenient(String.self, forKey: .managementURL).flatMap(URL.init(string:))

        let subscriptionWires = s.lenient(LossyDictionary<SubscriptionInfo.Wire>.self, forKey: .subscriptions)?.values ?? [:]
        let subscriptionsByProduct = Dictionary(
            uniqueKeysWithValues: subscriptionWires.map {
                ($0.key, $0.value.model(productIdentifier: $0.key))
            })

        let transactionWires =
            s.lenient(
                LossyDictionary<LossyArray<NonSubscriptionTransaction.Wire>>.self, forKey: .nonSubscriptions
            )?.values ?? [:]
        let transactionsByProduct: [String: [NonSubscriptionTransaction]] = transactionWires.reduce(into: [:]) { result, entry in
            result[entry.key] = entry.value.elements.map { $0.model(productIdentifier: entry.key) }
        }

        let entitlementWires = s.lenient(LossyDictionary<EntitlementInfo.Wire>.self, forKey: .entitlements)?.values ?? [:]
        let evaluationDate = requestDate
        entitlements = Dictionary(
            uniqueKeysWithValues: entitlementWires.map { id, wire in
                let store =
                    subscriptionsByProduct[wire.productIdentifier]?.store
                    ?? transactionsByProduct[wire.productIdentifier]?.last?.store
                return (id, wire.model(identifier: id, store: store, evaluatedAt: evaluationDate))
            })
        subscriptions = subscriptionsByProduct
        nonSubscriptions = transactionsByProduct
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(requestDate, forKey: .requestDate)
        try c.encode(Int64((requestDate.timeIntervalSince1970 * 1000).rounded()), forKey: .requestDateMillis)
        var s = c.nestedContainer(keyedBy: SubscriberKeys.self, forKey: .subscriber)
        try s.encode(originalAppUserID, forKey: .originalAppUserID)
        try s.encodeIfPresent(firstSeen, forKey: .firstSeen)
        try s.encodeIfPresent(originalPurchaseDate, forKey: .originalPurchaseDate)
        try s.encodeIfPresent(managementURL?.absoluteString, forKey: .managementURL)
        try s.encode(entitlements.mapValues(EntitlementInfo.Wire.init), forKey: .entitlements)
        try s.encode(subscriptions.mapValues(SubscriptionInfo.Wire.init), forKey: .subscriptions)
        try s.encode(nonSubscriptions.mapValues { $0.map(NonSubscriptionTransaction.Wire.init) }, forKey: .nonSubscriptions)
    }
}
