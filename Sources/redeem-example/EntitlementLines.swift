import Foundation
import RedeemKit

/// The active entitlements, one per line: identifier and expiry, or "lifetime".
enum EntitlementLines {
    static func describe(_ info: CustomerInfo?) -> String {
        guard let info else { return "Entitlements: unknown (the server could not be asked, and nothing is cached)." }
        let active = info.activeEntitlements.values.sorted { $0.identifier < $1.identifier }
        guard !active.isEmpty else { return "No active entitlements." }
        let formatter = ISO8601DateFormatter()
        let lines = active.map { entitlement in
            let until = entitlement.expirationDate.map { "until \(formatter.string(from: $0))" } ?? "lifetime"
            return "  \(entitlement.identifier): \(until) (\(entitlement.productIdentifier))"
        }
        return (["Active entitlements:"] + lines).joined(separator: "\n")
    }
}
