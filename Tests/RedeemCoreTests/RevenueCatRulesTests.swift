import Foundation
import RedeemCore
import Testing

/// The RevenueCat rules Core decides: logIn, subscriber attributes, and the offerings body each store reads.
@Suite struct RevenueCatRulesTests {
    static let anonymous = try! AppUserID(validating: "$RCAnonymousID:0a1b2c3d4e5f40718293a4b5c6d7e8f9")

    @Test func logInFollowsRevenueCatsTable() throws {
        let identified = try AppUserID(validating: "user-1")
        #expect(LogInRules.decide(current: Self.anonymous, newIDs: nil) == .aliasNew)
        #expect(LogInRules.decide(current: Self.anonymous, newIDs: ["user-2"]) == .merge)
        #expect(LogInRules.decide(current: Self.anonymous, newIDs: ["user-2", "$RCAnonymousID:ffffffffffffffffffffffffffffffff"]) == .switchUser)
        #expect(LogInRules.decide(current: identified, newIDs: nil) == .switchUser)
        #expect(LogInRules.decide(current: identified, newIDs: ["user-2"]) == .switchUser)
    }

    static func change(_ key: String, _ value: String?, at ms: Int64) -> SubscriberAttributeRules.Change {
        .init(key: key, value: value, updatedAt: Date(milliseconds: ms))
    }

    @Test func attributesKeepTheNewestWriteAndRefuseWhatRevenueCatRefuses() {
        let (first, none) = SubscriberAttributeRules.apply(
            [Self.change("$email", "a@example.com", at: 10), Self.change("color", "blue", at: 10)], to: [:])
        #expect(none.isEmpty && first.mapValues(\.value) == ["$email": "a@example.com", "color": "blue"])
        // An older write loses; an equal-time one wins (the later request); "" and nil unset.
        let (second, _) = SubscriberAttributeRules.apply(
            [Self.change("$email", "old@example.com", at: 5), Self.change("color", "green", at: 10), Self.change("size", "L", at: 1)], to: first)
        #expect(second.mapValues(\.value) == ["$email": "a@example.com", "color": "green", "size": "L"])
        let (third, _) = SubscriberAttributeRules.apply([Self.change("color", nil, at: 11), Self.change("size", "", at: 11)], to: second)
        #expect(third.keys.sorted() == ["$email"])

        let (_, refused) = SubscriberAttributeRules.apply(
            [
                Self.change("$email", "nope", at: 1), Self.change("$custom", "x", at: 1), Self.change("_x", "x", at: 1),
                Self.change("a b", "x", at: 1), Self.change(String(repeating: "k", count: 41), "x", at: 1),
                Self.change("long", String(repeating: "v", count: 501), at: 1), Self.change("", "x", at: 1),
            ], to: [:])
        #expect(Set(refused.map(\.key)) == ["", "$custom", "$email", "_x", "a b", "long", String(repeating: "k", count: 41)])
        // Unsetting never needs a valid value.
        #expect(SubscriberAttributeRules.apply([Self.change("$email", "", at: 1)], to: [:]).refused.isEmpty)
    }

    @Test func deviceIdentifiersAreSetOnceAndServerFilledValuesAreDropped() {
        let (set, _) = SubscriberAttributeRules.apply([Self.change("$idfa", "A", at: 1), Self.change("$ip", "true", at: 1)], to: [:])
        #expect(set.mapValues(\.value) == ["$idfa": "A"])
        let (kept, _) = SubscriberAttributeRules.apply([Self.change("$idfa", "B", at: 2), Self.change("$ip", "203.0.113.9", at: 2)], to: set)
        #expect(kept["$idfa"]?.value == "A" && kept["$ip"]?.value == "203.0.113.9")
    }

    @Test func fiftyCustomKeysAtMostReservedOnesApart() {
        var existing: [String: SubscriberAttribute] = [:]
        for index in 0..<50 { existing["k\(index)"] = SubscriberAttribute(value: "v", updatedAt: Date(milliseconds: 1)) }
        let (after, refused) = SubscriberAttributeRules.apply(
            [Self.change("k50", "v", at: 2), Self.change("$displayName", "Ada", at: 2), Self.change("k0", "w", at: 2)], to: existing)
        #expect(refused.map(\.key) == ["k50"])
        #expect(after.count == 51 && after["k0"]?.value == "w")
    }

    static func product(_ id: String, _ type: ProductType, _ ids: StoreProductIDs) -> Product {
        Product(
            appID: "app", id: id, type: type, period: type == .subscription ? "P1M" : nil, displayName: nil, entitlements: ["pro"],
            storeIDs: ids, createdAt: Date(milliseconds: 0))
    }

    /// The user's override is current where it is shown; where it is not (or names no offering), the app's own is.
    @Test func anOverrideIsCurrentWhereItIsShown() throws {
        let products = [
            Self.product("monthly", .subscription, StoreProductIDs(appStore: "ios.monthly")),
            Self.product("web", .nonConsumable, StoreProductIDs()),
        ]
        let byID = Dictionary(uniqueKeysWithValues: products.map { ($0.id, $0) })
        func offering(_ id: String, current: Bool, product: String) -> Offering {
            Offering(
                appID: "app", id: id, description: "", metadataJSON: "{}", isCurrent: current, packages: [.init(id: "p", productID: product)],
                createdAt: Date(milliseconds: 0))
        }
        let offerings = [
            offering("main", current: true, product: "monthly"), offering("sale", current: false, product: "monthly"),
            offering("web_only", current: false, product: "web"),
        ]
        func current(_ override: String?, on platform: StorePlatform) throws -> String? {
            let bytes = OfferingsDocument.offerings(offerings, products: byID, platform: platform, override: override) { _ in nil }
            return try (JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])?["current_offering_id"] as? String
        }
        #expect(try current(nil, on: .appStore) == "main")
        #expect(try current("sale", on: .appStore) == "sale")
        #expect(try current("web_only", on: .appStore) == "main")
        #expect(try current("web_only", on: .web) == "web_only")
        #expect(try current("gone", on: .appStore) == "main")
        #expect(OfferingsDocument.isShown(offerings[0], products: byID, on: .appStore))
        #expect(!OfferingsDocument.isShown(offerings[2], products: byID, on: .appStore))
        #expect(!OfferingsDocument.isShown(offerings[2], products: byID, on: .playStore))
        #expect(OfferingsDocument.isShown(offerings[2], products: byID, on: .web))
    }

    @Test func eachStoreSeesItsOwnIdentifiersAndOptionalKeysAreLeftOut() throws {
        let products = [
            Self.product("monthly", .subscription, StoreProductIDs(appStore: "ios.monthly", playStore: "pro", playBasePlan: "monthly")),
            Self.product("lifetime", .nonConsumable, StoreProductIDs(appStore: nil, playStore: "lifetime", playBasePlan: nil)),
        ]
        let offering = Offering(
            appID: "app", id: "main", description: "Main", metadataJSON: #"{"a":[1,{"b":null}]}"#, isCurrent: true,
            packages: [.init(id: "$rc_monthly", productID: "monthly"), .init(id: "$rc_lifetime", productID: "lifetime")],
            createdAt: Date(milliseconds: 0))
        let byID = Dictionary(uniqueKeysWithValues: products.map { ($0.id, $0) })
        let ios = String(decoding: OfferingsDocument.offerings([offering], products: byID, platform: .appStore) { _ in nil }, as: UTF8.self)
        #expect(
            ios
                == #"{"current_offering_id":"main","offerings":[{"description":"Main","identifier":"main","metadata":{"a":[1,{"b":null}]},"packages":[{"identifier":"$rc_monthly","platform_product_identifier":"ios.monthly"}]}]}"#
        )
        let android = String(
            decoding: OfferingsDocument.offerings([offering], products: byID, platform: .playStore) { "https://pay.example.com/p/app/\($0.id)" },
            as: UTF8.self)
        #expect(
            android.contains(
                #"{"identifier":"$rc_monthly","platform_product_identifier":"pro","platform_product_plan_identifier":"monthly","web_checkout_url":"https://pay.example.com/p/app/monthly"}"#
            ))
        #expect(
            android.contains(
                #"{"identifier":"$rc_lifetime","platform_product_identifier":"lifetime","web_checkout_url":"https://pay.example.com/p/app/lifetime"}"#
            ))
        // No product on the platform: the offering is left out, and no offering is current.
        let bare = Self.product("web", .nonConsumable, StoreProductIDs())
        let webOnly = Offering(
            appID: "app", id: "w", description: "", metadataJSON: "{}", isCurrent: true, packages: [.init(id: "x", productID: "web")],
            createdAt: Date(milliseconds: 0))
        #expect(
            String(decoding: OfferingsDocument.offerings([webOnly], products: ["web": bare], platform: .appStore) { _ in nil }, as: UTF8.self)
                == #"{"current_offering_id":null,"offerings":[]}"#)

        // The names each SDK is shown, as the console's offerings page lists them: Play's with the base plan.
        #expect(byID["monthly"].flatMap { OfferingsDocument.storeKey($0, on: .playStore) } == "pro:monthly")
        #expect(byID["monthly"].flatMap { OfferingsDocument.storeKey($0, on: .appStore) } == "ios.monthly")
        #expect(OfferingsDocument.storeKey(bare, on: .appStore) == nil && OfferingsDocument.storeKey(bare, on: .web) == "web")

        let mapping = String(decoding: OfferingsDocument.productEntitlementMapping(products), as: UTF8.self)
        #expect(
            mapping
                == #"{"product_entitlement_mapping":{"ios.monthly":{"entitlements":["pro"],"product_identifier":"ios.monthly"},"lifetime":{"entitlements":["pro"],"product_identifier":"lifetime"},"pro:monthly":{"base_plan_id":"monthly","entitlements":["pro"],"product_identifier":"pro"}}}"#
        )
    }

    @Test func storeIdentifiersAreCheckedForTheProductsType() {
        #expect(throws: ValidationError.self) { try StoreProductIDs(appStore: nil, playStore: "pro", playBasePlan: nil).validate(for: .subscription) }
        #expect(throws: ValidationError.self) { try StoreProductIDs(appStore: nil, playStore: "x", playBasePlan: "b").validate(for: .nonConsumable) }
        #expect(throws: ValidationError.self) {
            try StoreProductIDs(appStore: "a b", playStore: nil, playBasePlan: nil).validate(for: .nonConsumable)
        }
        #expect(throws: ValidationError.self) {
            try StoreProductIDs(appStore: "a:b", playStore: nil, playBasePlan: nil).validate(for: .nonConsumable)
        }
        #expect(throws: Never.self) { try StoreProductIDs(appStore: "com.x.y", playStore: "p", playBasePlan: "m").validate(for: .subscription) }
    }
}
