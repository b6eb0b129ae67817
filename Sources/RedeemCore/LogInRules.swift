/// What `Purchases.logIn(new)` (`POST /v1/subscribers/identify`) does, as RevenueCat documents it: from an anonymous ID
/// the two become one customer (the buyer who redeemed a link anonymously keeps it under the new ID), unless the new ID
/// already has an anonymous ID of its own; from an identified ID the app just switches user.
public enum LogInDecision: Equatable, Sendable {
    /// The current ID's customer takes the new ID (which did not exist): created, 201.
    case aliasNew
    /// The current (anonymous) customer merges into the new ID's.
    case merge
    /// Nothing of the current ID moves; the new ID is read (and created when new).
    case switchUser
}

public enum LogInRules {
    /// `newIDs`: every ID of the new ID's customer, nil when it does not exist yet.
    public static func decide(current: AppUserID, newIDs: [String]?) -> LogInDecision {
        guard current.isAnonymous else { return .switchUser }
        guard let newIDs else { return .aliasNew }
        // The new user was anonymous on another device already: their histories stay apart, as RevenueCat keeps them.
        if newIDs.contains(where: { $0.hasPrefix(AppUserID.anonymousPrefix) }) { return .switchUser }
        return .merge
    }
}
