import Foundation
import RedeemCore
import RedeemStore

/// What Stripe's webhook changes: purchases through a lifecycle transaction, recorded once per event.
protocol StripeEventStore: Sendable {
    /// Runs `apply` once per (source, event ID), in the same transaction that records the event; nil for a repeat.
    /// `mail`: the changes' buyer notices are queued with them (nil: none).
    func processStoreEvent<T: Sendable>(
        source: String, eventID: String, type: String, now: Date, mail: LifecycleMail?,
        _ apply: @escaping @Sendable (LifecycleTransaction) async throws -> T
    ) async throws -> T?
    /// The purchase any of whose payments is `reference` (a payment intent).
    func purchase(paidWith reference: String) async throws -> Purchase?
    func advanceWebCheckout(id: String, to status: WebCheckout.Status, now: Date) async throws
}
