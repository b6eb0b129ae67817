import Foundation
import RedeemCore
import RedeemStore

/// What setting subscriber attributes needs.
protocol AttributesStore: Sendable {
    func setAttributes(
        appID: String, appUserID: AppUserID, changes: [SubscriberAttributeRules.Change], fromBackend: Bool, now: Date
    ) async throws -> [SubscriberAttributeRules.Refusal]
    func attributeRecords(appID: String, appUserID: AppUserID) async throws -> [SubscriberAttributeRecord]
}
