import Foundation

/// One subscriber attribute as RevenueCat keeps it: a string value and when the client set it.
public struct SubscriberAttribute: Hashable, Sendable {
    public var value: String
    public var updatedAt: Date

    public init(value: String, updatedAt: Date) {
        self.value = value
        self.updatedAt = updatedAt
    }
}

/// RevenueCat's subscriber attributes (`POST /v1/subscribers/{id}/attributes`), decided here: which keys and values are
/// valid, last write wins by `updated_at_ms`, null or "" unsets, device identifiers and attribution are set once.
public enum SubscriberAttributeRules {
    /// RevenueCat's documented limits for custom attributes.
    public static let maxCustom = 50
    public static let maxKeyLength = 40
    public static let maxValueLength = 500
    /// A request may carry at most this many keys (a bound on the work one request makes, not RevenueCat's).
    public static let maxKeysPerRequest = 200

    /// The `$` keys RevenueCat's SDKs and documentation reserve; any other `$` key is refused.
    public static let reserved: Set<String> = [
        "$email", "$phoneNumber", "$displayName", "$apnsTokens", "$fcmTokens", "$idfa", "$idfv", "$gpsAdId", "$amazonAdId",
        "$androidId", "$attConsentStatus", "$ip", "$deviceVersion", "$adjustId", "$appsflyerId", "$appstackId", "$fbAnonId",
        "$mparticleId", "$onesignalId", "$onesignalUserId", "$airshipChannelId", "$clevertapId", "$airbridgeDeviceId",
        "$kochavaDeviceId", "$mixpanelDistinctId", "$firebaseAppInstanceId", "$tenjinId", "$posthogUserId", "$amplitudeUserId",
        "$amplitudeDeviceId", "$solarEngineDistinctId", "$solarEngineAccountId", "$solarEngineVisitorId", "$brazeAliasName",
        "$brazeAliasLabel", "$iterableUserId", "$iterableCampaignId", "$iterableTemplateId", "$customerioId",
        "$appleRefundHandlingPreference", "$mediaSource", "$campaign", "$adGroup", "$ad", "$keyword", "$creative",
    ]

    /// Device identifiers and attribution: once set, never changed (RevenueCat's documented rule).
    public static let setOnce: Set<String> = [
        "$idfa", "$idfv", "$gpsAdId", "$amazonAdId", "$androidId", "$mediaSource", "$campaign", "$adGroup", "$ad", "$keyword", "$creative",
    ]

    /// Sent by the SDKs as the literal "true" for the server to fill from the request; Redeem keeps neither the
    /// client's address nor its device string, so such a value is dropped rather than stored.
    public static let serverFilled: Set<String> = ["$ip", "$deviceVersion"]

    /// One key as a client sent it; `value` nil (or "") unsets.
    public struct Change: Hashable, Sendable {
        public var key: String
        public var value: String?
        public var updatedAt: Date

        public init(key: String, value: String?, updatedAt: Date) {
            self.key = key
            self.value = value
            self.updatedAt = updatedAt
        }
    }

    /// A key refused, with RevenueCat's kind of message (`attribute_errors[].message`).
    public struct Refusal: Hashable, Sendable {
        public var key: String
        public var message: String
    }

    /// What applying `changes` to `existing` leaves, and the keys refused. Valid keys are applied even when others are
    /// refused, as RevenueCat saves what it can; a change older than the stored value is ignored.
    public static func apply(
        _ changes: [Change], to existing: [String: SubscriberAttribute]
    ) -> (
        attributes: [String: SubscriberAttribute], refused: [Refusal]
    ) {
        var attributes = existing
        var refused: [Refusal] = []
        for change in changes.sorted(by: { $0.key < $1.key }) {
            if let message = refusal(change) {
                refused.append(Refusal(key: change.key, message: message))
                continue
            }
            let value = change.value ?? ""
            if serverFilled.contains(change.key), value == "true" { continue }
            if let current = attributes[change.key] {
                guard change.updatedAt >= current.updatedAt else { continue }  // an older write loses
                if setOnce.contains(change.key), !current.value.isEmpty, current.value != value { continue }
            }
            if value.isEmpty {
                attributes[change.key] = nil
            } else {
                if !change.key.hasPrefix("$"), attributes[change.key] == nil,
                    attributes.keys.filter({ !$0.hasPrefix("$") }).count >= maxCustom
                {
                    refused.append(Refusal(key: change.key, message: "Too many custom attributes: at most \(maxCustom) per customer."))
                    continue
                }
                attributes[change.key] = SubscriberAttribute(value: value, updatedAt: change.updatedAt)
            }
        }
        return (attributes, refused)
    }

    /// Why one change is refused, or nil.
    static func refusal(_ change: Change) -> String? {
        let key = change.key
        if key.hasPrefix("$") {
            guard reserved.contains(key) else { return "Key name is reserved: keys starting with $ are RevenueCat's." }
        } else {
            guard (1...maxKeyLength).contains(key.count), let first = key.unicodeScalars.first, first.isASCIILetter,
                key.unicodeScalars.allSatisfy({ $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" })
            else { return "Key name format is not valid: 1–\(maxKeyLength) letters, digits, - or _, starting with a letter." }
        }
        guard let value = change.value, !value.isEmpty else { return nil }
        guard value.count <= maxValueLength else { return "Value is too long: at most \(maxValueLength) characters." }
        if key == "$email", !Formats.isEmail(value) { return "Value is not a valid email address." }
        return nil
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
