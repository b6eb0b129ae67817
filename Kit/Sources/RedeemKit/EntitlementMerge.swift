extension EntitlementInfo {
    /// Merges web entitlements with the device's own (for example from StoreKit) by identifier.
    ///
    /// For each identifier one entitlement is kept: an active one over an inactive one; then the
    /// later expiry; then a lifetime one (no expiry) over one that expires. On a full tie the web
    /// entitlement is kept.
    public static func merge(web: [EntitlementInfo], device: [EntitlementInfo]) -> [String: EntitlementInfo] {
        var merged: [String: EntitlementInfo] = [:]
        for entitlement in web + device {
            if let existing = merged[entitlement.identifier], !entitlement.takesPriority(over: existing) {
                continue
            }
            merged[entitlement.identifier] = entitlement
        }
        return merged
    }

    /// Whether `self` should replace `other` when both have the same identifier.
    func takesPriority(over other: EntitlementInfo) -> Bool {
        if isActive != other.isActive {
            return isActive
        }
        switch (expirationDate, other.expirationDate) {
        case let (mine?, theirs?):
            return mine > theirs
        case (nil, _?):
            return true
        case (_?, nil), (nil, nil):
            return false
        }
    }
}

extension CustomerInfo {
    /// This customer's web entitlements merged with the device's; see `EntitlementInfo.merge(web:device:)`.
    public func mergedEntitlements(withDevice device: [EntitlementInfo]) -> [String: EntitlementInfo] {
        EntitlementInfo.merge(web: Array(entitlements.values), device: device)
    }

    /// Identifiers active on the web or on the device.
    public func activeEntitlementIDs(mergingDevice device: [EntitlementInfo]) -> Set<String> {
        Set(mergedEntitlements(withDevice: device).values.filter(\.isActive).map(\.identifier))
    }
}
