import Foundation
import RedeemCore
import RedeemStore

/// Everything stored about one customer, as the JSON file an owner downloads (a data-access request): the customer,
/// their IDs and attributes, purchases, redemption links (when issued, opened, redeemed; never a token or its hash),
/// attempts, e-mails, webhook events about them and the audit entries about them.
struct CustomerExport: Encodable {
    struct Person: Encodable {
        let id: String
        let originalAppUserID: String
        let firstSeen: Date
        let lastSeen: Date
    }

    struct Attribute: Encodable {
        let key: String
        let value: String
        let updatedAt: Date
        let setBy: String
    }

    struct Amount: Encodable {
        let amount: String
        let currency: String
    }

    struct PurchaseRecord: Encodable {
        let id: String
        let productID: String
        let store: String
        let isSandbox: Bool
        let purchaseDate: Date
        let originalPurchaseDate: Date
        let expiresDate: Date?
        let gracePeriodExpiresDate: Date?
        let periodType: String
        let storeTransactionID: String
        let price: Amount?
        let email: String?
        let unsubscribeDetectedAt: Date?
        /// Why it was set to end, when the buyer said: Stripe's `cancellation_details.feedback` value.
        let cancellationFeedback: String?
        let billingIssuesDetectedAt: Date?
        let refundedAt: Date?
        let customParams: [String: String]
        let offerID: String?
        /// The language the buyer read the checkout in, which the purchase's e-mails speak.
        let language: String?
    }

    struct LinkRecord: Encodable {
        let purchaseID: String
        let issuedAt: Date
        let expiresAt: Date
        let openedAt: Date?
        let redeemedAt: Date?
        let redeemedBy: String?
    }

    struct AttemptRecord: Encodable {
        let id: String
        let purchaseID: String?
        let appUserID: String
        let outcome: String
        let at: Date
    }

    struct EmailRecord: Encodable {
        let id: String
        let purchaseID: String
        let kind: String
        let recipient: String
        let queuedAt: Date
        let attempts: Int
        let sentAt: Date?
        let failedAt: Date?
        let lastError: String?
    }

    struct WebhookEvent: Encodable {
        let eventID: String
        let type: String
        let createdAt: Date
        /// The event as it was sent (RevenueCat's shape), once however many endpoints it went to.
        let body: JSONValue?
    }

    struct OfferingChoice: Encodable {
        let offeringID: String
        let chosenAt: Date
    }

    struct AuditRecord: Encodable {
        let at: Date
        let actor: String
        let action: String
        let objectType: String
        let objectID: String
        let detail: String?
    }

    let exportedAt: Date
    let appID: String
    let customer: Person
    let aliases: [String]
    let attributes: [Attribute]
    /// The current offering chosen for them (RevenueCat's offering override), if any.
    let currentOffering: OfferingChoice?
    let purchases: [PurchaseRecord]
    let redemptionLinks: [LinkRecord]
    let redemptionAttempts: [AttemptRecord]
    let emails: [EmailRecord]
    let webhookEvents: [WebhookEvent]
    let auditEntries: [AuditRecord]

    init(_ facts: CustomerFacts, appID: String, at now: Date) {
        exportedAt = now
        self.appID = appID
        let person = facts.customer
        customer = Person(id: person.id, originalAppUserID: person.originalAppUserID, firstSeen: person.firstSeen, lastSeen: person.lastSeen)
        aliases = person.aliases
        attributes = facts.attributes.map {
            Attribute(key: $0.key, value: $0.value, updatedAt: $0.updatedAt, setBy: $0.fromBackend ? "secret key" : "app")
        }
        currentOffering = facts.offeringOverride.map { OfferingChoice(offeringID: $0.offeringID, chosenAt: $0.setAt) }
        purchases = facts.purchases.map { p in
            PurchaseRecord(
                id: p.id, productID: p.productID, store: p.store.rawValue, isSandbox: p.isSandbox, purchaseDate: p.purchaseDate,
                originalPurchaseDate: p.originalPurchaseDate, expiresDate: p.expiresDate, gracePeriodExpiresDate: p.gracePeriodExpiresDate,
                periodType: p.periodType.rawValue, storeTransactionID: p.storeTransactionID,
                price: p.price.map { Amount(amount: $0.plainAmount, currency: $0.currency) }, email: p.email,
                unsubscribeDetectedAt: p.unsubscribeDetectedAt, cancellationFeedback: p.cancellationFeedback?.rawValue,
                billingIssuesDetectedAt: p.billingIssuesDetectedAt, refundedAt: p.refundedAt,
                customParams: p.customParams, offerID: p.offer?.offerID, language: p.language)
        }
        redemptionLinks = facts.links.map {
            LinkRecord(
                purchaseID: $0.purchaseID, issuedAt: $0.link.createdAt, expiresAt: $0.link.expiresAt, openedAt: $0.link.openedAt,
                redeemedAt: $0.link.redeemedAt, redeemedBy: $0.link.redeemedBy)
        }
        redemptionAttempts = facts.attempts.map {
            AttemptRecord(
                id: $0.attempt.id, purchaseID: $0.purchaseID, appUserID: $0.attempt.appUserID, outcome: $0.attempt.outcome,
                at: $0.attempt.createdAt)
        }
        emails = facts.emails.map {
            EmailRecord(
                id: $0.email.id, purchaseID: $0.email.purchaseID, kind: $0.email.kind.rawValue, recipient: $0.email.recipient,
                queuedAt: $0.email.createdAt, attempts: $0.email.attempts, sentAt: $0.sentAt, failedAt: $0.failedAt, lastError: $0.lastError)
        }
        var seen = Set<String>()
        webhookEvents = facts.webhooks.map(\.delivery).compactMap { delivery in
            guard seen.insert(delivery.eventID).inserted else { return nil }
            return WebhookEvent(
                eventID: delivery.eventID, type: delivery.eventType, createdAt: delivery.createdAt,
                body: try? JSONDecoder().decode(JSONValue.self, from: Data(delivery.body.utf8)))
        }
        auditEntries = facts.audit.map {
            AuditRecord(at: $0.at, actor: $0.actor, action: $0.action, objectType: $0.objectType, objectID: $0.objectID, detail: $0.detail)
        }
    }

    /// The file: snake_case keys, ISO 8601 dates, sorted keys so two exports of the same facts are the same bytes.
    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
