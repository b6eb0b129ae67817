import Foundation
import Testing

@testable import RedeemKit

@Suite("Merging web and device entitlements")
struct EntitlementMergeTests {
    static let now = Fixture.requestDate
    static let day = Fixture.day

    static func entitlement(_ product: String, active: Bool, expires: Date?, id: String = "pro") -> EntitlementInfo {
        EntitlementInfo(identifier: id, isActive: active, productIdentifier: product, expirationDate: expires)
    }

    @Test(arguments: [
        // (web, device, winner's product)
        (entitlement("web", active: true, expires: now + day), entitlement("device", active: false, expires: now + 9 * day), "web"),
        (entitlement("web", active: false, expires: nil), entitlement("device", active: true, expires: now + day), "device"),
        (entitlement("web", active: true, expires: now + day), entitlement("device", active: true, expires: now + 2 * day), "device"),
        (entitlement("web", active: true, expires: now + 3 * day), entitlement("device", active: true, expires: now + 2 * day), "web"),
        (entitlement("web", active: true, expires: nil), entitlement("device", active: true, expires: now + 99 * day), "web"),
        (entitlement("web", active: true, expires: now + 99 * day), entitlement("device", active: true, expires: nil), "device"),
        (entitlement("web", active: false, expires: now - day), entitlement("device", active: false, expires: now - 2 * day), "web"),
        (entitlement("web", active: true, expires: now + day), entitlement("device", active: true, expires: now + day), "web"),
        (entitlement("web", active: true, expires: nil), entitlement("device", active: true, expires: nil), "web"),
    ])
    func picksOnePerIdentifier(web: EntitlementInfo, device: EntitlementInfo, winner: String) {
        let merged = EntitlementInfo.merge(web: [web], device: [device])
        #expect(merged.count == 1)
        #expect(merged["pro"]?.productIdentifier == winner)
        // Order of the device list does not matter.
        #expect(EntitlementInfo.merge(web: [web], device: [device, device])["pro"]?.productIdentifier == winner)
    }

    @Test func keepsEntitlementsFoundOnOneSideOnly() {
        let merged = EntitlementInfo.merge(
            web: [Self.entitlement("w", active: true, expires: nil, id: "web_only")],
            device: [Self.entitlement("d", active: false, expires: Self.now - Self.day, id: "device_only")]
        )
        #expect(Set(merged.keys) == ["web_only", "device_only"])
    }

    @Test func customerInfoHelpersMergeWithTheDevice() throws {
        let info = try Fixture.decodeCustomerInfo(
            Fixture.customerInfoObject(entitlements: [
                .init(id: "pro", expires: Self.now + Self.day),
                .init(id: "old", expires: Self.now - Self.day),
            ]))
        let device = [
            Self.entitlement("sk_old", active: true, expires: Self.now + Self.day, id: "old"),
            Self.entitlement("sk_pro", active: true, expires: Self.now + 5 * Self.day, id: "pro"),
            Self.entitlement("sk_gone", active: false, expires: Self.now - Self.day, id: "gone"),
        ]
        let merged = info.mergedEntitlements(withDevice: device)
        #expect(merged["pro"]?.productIdentifier == "sk_pro")
        #expect(merged["old"]?.productIdentifier == "sk_old")
        #expect(info.activeEntitlementIDs(mergingDevice: device) == ["pro", "old"])
    }
}
