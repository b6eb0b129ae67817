import Foundation

/// The rules RevenueCat's SDKs decode answers by, written from their decoding models (purchases-ios
/// `Sources/Networking/Responses/*Response.swift`; purchases-android `common/CustomerInfoFactory.kt`,
/// `common/OfferingParser.kt`, `common/GoogleOfferingParser.kt`, `common/offlineentitlements/ProductEntitlementMapping.kt`).
/// Each check returns what an SDK would reject; empty means both SDKs accept the answer.
enum RevenueCatDecoding {
    enum Platform: String, CaseIterable, Sendable {
        case ios, android

        /// The `X-Platform` header each SDK sends.
        var header: String { self == .ios ? "iOS" : "android" }
    }

    static func object(_ body: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
    }

    /// A date as both SDKs parse them (ISO 8601, with or without fractional seconds).
    static func isDate(_ value: Any?) -> Bool {
        guard let text = value as? String else { return false }
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions.insert(.withFractionalSeconds)
        return plain.date(from: text) != nil || fractional.date(from: text) != nil
    }

    /// iOS `CustomerInfoResponse` and Android `CustomerInfoFactory`: `request_date` and `subscriber.first_seen` are
    /// dates; `subscriptions` and `non_subscriptions` are objects (Android's `getJSONObject`); each subscription has a
    /// `purchase_date`, a price has a numeric `amount`; each entitlement names its product.
    static func customerInfoProblems(_ body: String) -> [String] {
        guard let root = object(body) else { return ["not a JSON object"] }
        var problems: [String] = []
        if !isDate(root["request_date"]) { problems.append("request_date is not a date") }
        if root["request_date_ms"] != nil, !(root["request_date_ms"] is NSNumber) { problems.append("request_date_ms is not a number") }
        guard let subscriber = root["subscriber"] as? [String: Any] else { return problems + ["no subscriber object"] }
        if !(subscriber["original_app_user_id"] is String) { problems.append("original_app_user_id is not a string (iOS requires it)") }
        if !isDate(subscriber["first_seen"]) { problems.append("first_seen is not a date") }
        for key in ["subscriptions", "non_subscriptions", "entitlements"] where !(subscriber[key] is [String: Any]) {
            problems.append("\(key) is not an object")
        }
        if let url = subscriber["management_url"], !(url is NSNull), URL(string: url as? String ?? "") == nil {
            problems.append("management_url is not a URL")
        }
        for (id, value) in subscriber["subscriptions"] as? [String: Any] ?? [:] {
            guard let subscription = value as? [String: Any] else {
                problems.append("subscriptions.\(id) is not an object")
                continue
            }
            if !isDate(subscription["purchase_date"]) { problems.append("subscriptions.\(id).purchase_date is not a date") }
            if let expires = subscription["expires_date"], !(expires is NSNull), !isDate(expires) {
                problems.append("subscriptions.\(id).expires_date is not a date")
            }
            if let price = subscription["price"], !(price is NSNull) {
                let price = price as? [String: Any]
                if !(price?["amount"] is NSNumber) || price?["amount"] is String {
                    problems.append("subscriptions.\(id).price.amount is not a number")
                }
                if !(price?["currency"] is String) { problems.append("subscriptions.\(id).price.currency is not a string") }
            }
        }
        for (id, value) in subscriber["non_subscriptions"] as? [String: Any] ?? [:] {
            guard let list = value as? [[String: Any]] else {
                problems.append("non_subscriptions.\(id) is not an array of objects")
                continue
            }
            for transaction in list {
                if !isDate(transaction["purchase_date"]) { problems.append("non_subscriptions.\(id)[].purchase_date is not a date") }
                if !(transaction["is_sandbox"] is Bool) && !(transaction["is_sandbox"] is NSNumber) {
                    problems.append("non_subscriptions.\(id)[].is_sandbox is missing (iOS requires it)")
                }
            }
        }
        for (id, value) in subscriber["entitlements"] as? [String: Any] ?? [:] {
            let entitlement = value as? [String: Any]
            if !(entitlement?["product_identifier"] is String) { problems.append("entitlements.\(id).product_identifier is not a string") }
            if let expires = entitlement?["expires_date"], !(expires is NSNull), !isDate(expires) {
                problems.append("entitlements.\(id).expires_date is not a date")
            }
        }
        if let attributes = subscriber["subscriber_attributes"] {
            // iOS fails the whole CustomerInfo over one malformed attribute.
            for (key, value) in attributes as? [String: Any] ?? [:] {
                let attribute = value as? [String: Any]
                if !(attribute?["value"] is String) || !(attribute?["updated_at_ms"] is NSNumber) {
                    problems.append("subscriber_attributes.\(key) is not {value, updated_at_ms}")
                }
            }
        }
        return problems
    }

    /// iOS `OfferingsResponse` and Android `OfferingParser`: `current_offering_id` present (Android's `getString`);
    /// each offering has an identifier, a description string and packages; each package an identifier and the store's
    /// product ID; optional strings are left out rather than null (Android reads null as "null"); `web_checkout_url`
    /// parses as a URL (iOS fails the whole answer otherwise); `metadata` is an object when present.
    static func offeringsProblems(_ body: String) -> [String] {
        guard let root = object(body) else { return ["not a JSON object"] }
        var problems: [String] = []
        if !root.keys.contains("current_offering_id") { problems.append("current_offering_id is missing (Android requires the key)") }
        if let current = root["current_offering_id"], !(current is NSNull), !(current is String) {
            problems.append("current_offering_id is not a string or null")
        }
        guard let offerings = root["offerings"] as? [[String: Any]] else { return problems + ["offerings is not an array of objects"] }
        for offering in offerings {
            let id = offering["identifier"] as? String ?? "?"
            if !(offering["identifier"] is String) { problems.append("an offering has no identifier") }
            if !(offering["description"] is String) { problems.append("\(id).description is not a string (iOS requires it)") }
            if let metadata = offering["metadata"], !(metadata is [String: Any]) { problems.append("\(id).metadata is not an object") }
            guard let packages = offering["packages"] as? [[String: Any]] else {
                problems.append("\(id).packages is not an array of objects")
                continue
            }
            for package in packages {
                let name = "\(id).\(package["identifier"] as? String ?? "?")"
                if !(package["identifier"] is String) { problems.append("\(name) has no identifier") }
                if !(package["platform_product_identifier"] is String) { problems.append("\(name).platform_product_identifier is not a string") }
                for key in ["platform_product_plan_identifier", "web_checkout_url"] where package[key] != nil {
                    if !(package[key] is String) { problems.append("\(name).\(key) is present but not a string (null reads as \"null\")") }
                }
                if let url = package["web_checkout_url"] as? String, URL(string: url)?.scheme == nil {
                    problems.append("\(name).web_checkout_url is not a URL")
                }
            }
        }
        return problems
    }

    /// iOS `ProductEntitlementMappingResponse`, Android `ProductEntitlementMapping.fromJson`.
    static func mappingProblems(_ body: String) -> [String] {
        guard let mapping = object(body)?["product_entitlement_mapping"] as? [String: Any] else {
            return ["product_entitlement_mapping is not an object"]
        }
        var problems: [String] = []
        for (key, value) in mapping {
            let entry = value as? [String: Any]
            if !(entry?["product_identifier"] is String) { problems.append("\(key).product_identifier is not a string") }
            if !(entry?["entitlements"] is [String]) { problems.append("\(key).entitlements is not an array of strings") }
            if let plan = entry?["base_plan_id"], !(plan is String) { problems.append("\(key).base_plan_id is present but not a string") }
        }
        return problems
    }

    /// Both SDKs read an error's `code` (never the status) and `message`.
    static func errorProblems(_ body: String) -> [String] {
        guard let root = object(body) else { return ["not a JSON object"] }
        var problems: [String] = []
        if !(root["code"] is NSNumber) { problems.append("code is not a number") }
        if !(root["message"] is String) { problems.append("message is not a string") }
        return problems
    }

    /// iOS's `GetIntroEligibilityResponse`: a flat object of product ID to `true`, `false` or `null` (unknown).
    static func introEligibilityProblems(_ body: String) -> [String] {
        // What the SDK does: `[String: Bool?].create(with:)`.
        (try? JSONDecoder().decode([String: Bool?].self, from: Data(body.utf8))) == nil ? ["not an object of Bool or null"] : []
    }

    /// iOS's `PostOfferResponse` (snake case): `offers`, each with string `key_id`, `offer_id` and `product_id`, and
    /// either `signature_data` or a `signature_error` read as an error body. The SDK uses the first offer.
    static func offerSigningProblems(_ body: String) -> [String] {
        guard let offers = object(body)?["offers"] as? [[String: Any]] else { return ["offers is not an array of objects"] }
        var problems: [String] = []
        for (index, offer) in offers.enumerated() {
            for key in ["key_id", "offer_id", "product_id"] where !(offer[key] is String) {
                problems.append("offers[\(index)].\(key) is not a string")
            }
            if let error = offer["signature_error"] as? [String: Any] {
                problems += errorProblems(String(decoding: try! JSONSerialization.data(withJSONObject: error), as: UTF8.self)).map {
                    "offers[\(index)]: \($0)"
                }
            } else if offer["signature_data"] == nil || offer["signature_data"] is NSNull {
                problems.append("offers[\(index)] has neither signature_data nor signature_error")
            }
        }
        return problems
    }
}
