import Foundation
import RedeemCore
import RedeemWebhooks

/// RevenueCat's identity calls: `logIn` (`POST /v1/subscribers/identify`) and Android's restore alias
/// (`POST /v1/subscribers/{id}/alias`). The store reads who each ID is, `LogInRules` decides, the store applies.
extension SQLStore {
    /// Logs `current` in as `new`; returns whether `new` was created (RevenueCat answers 201 then, 200 otherwise). When
    /// two IDs become one customer, webhooks hear `SUBSCRIBER_ALIAS` (`sandbox`: a sandbox key asked).
    public func logIn(appID: String, current: AppUserID, new: AppUserID, sandbox: Bool, now: Date) async throws -> Bool {
        try await write { connection in
            let newCustomer = try await Self.resolve(appID: appID, appUserID: new, on: connection)
            guard current != new else {
                _ = try await Self.ensureCustomer(newCustomer, appID: appID, appUserID: new, now: now, on: connection)
                return newCustomer == nil
            }
            let currentCustomer = try await Self.resolve(appID: appID, appUserID: current, on: connection)
            if let currentCustomer, currentCustomer.id == newCustomer?.id {
                return false  // already one customer
            }
            let newIDs = try await newCustomer.asyncMap { try await Self.aliases(customerID: $0.id, on: connection) }
            switch LogInRules.decide(current: current, newIDs: newIDs) {
            case .aliasNew:
                let owner = try await Self.ensureCustomer(currentCustomer, appID: appID, appUserID: current, now: now, on: connection)
                try await connection.query(
                    """
                    INSERT INTO customer_aliases (app_id, app_user_id, customer_id, created_at)
                    VALUES (\(appID), \(new.rawValue), \(owner.id), \(now))
                    """)
                try await Self.emitAlias(appID: appID, customerID: owner.id, sandbox: sandbox, now: now, on: connection)
                return true
            case .merge:
                let target = try await Self.ensureCustomer(newCustomer, appID: appID, appUserID: new, now: now, on: connection)
                if let currentCustomer {
                    try await Self.merge(currentCustomer, into: target, on: connection)
                    try await Self.emitAlias(appID: appID, customerID: target.id, sandbox: sandbox, now: now, on: connection)
                }
                return false
            case .switchUser:
                _ = try await Self.ensureCustomer(newCustomer, appID: appID, appUserID: new, now: now, on: connection)
                return newCustomer == nil
            }
        }
    }

    /// Android's restore alias: the app's current anonymous ID joins the customer of the ID it had before (kept in
    /// Google's Block Store), as `logIn` from an anonymous ID would; an identified current ID changes nothing.
    public func restoreAlias(appID: String, previous: AppUserID, current: AppUserID, sandbox: Bool, now: Date) async throws {
        guard current.isAnonymous, previous != current else { return }
        try await write { connection in
            // An anonymous side merges, whoever the other is (`Association.decide`): the previous ID's customer keeps both.
            let currentCustomer = try await Self.resolveOrCreate(appID: appID, appUserID: current, now: now, on: connection)
            guard let previousCustomer = try await Self.resolve(appID: appID, appUserID: previous, on: connection) else {
                try await connection.query(
                    """
                    INSERT INTO customer_aliases (app_id, app_user_id, customer_id, created_at)
                    VALUES (\(appID), \(previous.rawValue), \(currentCustomer.id), \(now))
                    """)
                try await Self.emitAlias(appID: appID, customerID: currentCustomer.id, sandbox: sandbox, now: now, on: connection)
                return
            }
            if previousCustomer.id != currentCustomer.id {
                try await Self.merge(currentCustomer, into: previousCustomer, on: connection)
                try await Self.emitAlias(appID: appID, customerID: previousCustomer.id, sandbox: sandbox, now: now, on: connection)
            }
        }
    }
}

extension SQLStore {
    /// `SUBSCRIBER_ALIAS` for the customer two IDs became, as a redemption's merge sends it; read only for an app with a
    /// live endpoint.
    static func emitAlias(appID: String, customerID: String, sandbox: Bool, now: Date, on connection: any SQLConnection) async throws {
        guard try await hasLiveEndpoint(appID: appID, on: connection) else { return }
        let customer = try await eventCustomer(id: customerID, on: connection)
        try await emit(
            .alias(customer: customer, environment: WebhookEnvironment(isSandbox: sandbox), eventID: eventID(), at: now), on: connection, now: now)
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
