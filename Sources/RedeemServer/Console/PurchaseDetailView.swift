import Foundation
import RedeemCore
import RedeemStore

/// A purchase's support details as the admin API answers them (`GET …/purchases/{id}`). The generated code of the
/// server and of the CLI both use it (`typeOverrides`), so `redeem purchases show` builds locally what the server
/// sends, with no second mapping.
public struct PurchaseDetailView: Codable, Hashable, Sendable {
    /// A link issued for the purchase, never its token.
    public struct Link: Codable, Hashable, Sendable {
        public let issuedAt: Date
        public let expiresAt: Date
        public let openedAt: Date?
        public let redeemedAt: Date?
        public let redeemedBy: String?

        enum CodingKeys: String, CodingKey {
            case issuedAt = "issued_at"
            case expiresAt = "expires_at"
            case openedAt = "opened_at"
            case redeemedAt = "redeemed_at"
            case redeemedBy = "redeemed_by"
        }
    }

    public let purchase: Purchase
    public let redemptionAttempts: [RedemptionAttempt]
    public let redemptionLinks: [Link]
    public let emails: [SupportEmailView]
    public let webhookDeliveries: [WebhookDelivery]

    enum CodingKeys: String, CodingKey {
        case purchase, emails
        case redemptionAttempts = "redemption_attempts"
        case redemptionLinks = "redemption_links"
        case webhookDeliveries = "webhook_deliveries"
    }

    public init(_ detail: SupportService.PurchaseDetail) {
        purchase = detail.purchase
        redemptionAttempts = detail.attempts
        redemptionLinks = detail.links.map {
            Link(issuedAt: $0.createdAt, expiresAt: $0.expiresAt, openedAt: $0.openedAt, redeemedAt: $0.redeemedAt, redeemedBy: $0.redeemedBy)
        }
        emails = detail.emails.map { SupportEmailView($0.email, state: $0.state, lastError: $0.lastError) }
        webhookDeliveries = detail.webhooks
    }
}

/// An e-mail queued for a purchase, as a purchase's details and `…/emails/{id}/retry` answer it.
public struct SupportEmailView: Codable, Hashable, Sendable {
    public let id: String
    public let purchaseID: String
    /// `receipt`, `new_link` or `portal_sign_in`.
    public let kind: String
    public let recipient: String
    /// `queued`, `retrying`, `delivered` or `failed`.
    public let state: String
    public let attempts: Int
    public let queuedAt: Date
    public let lastError: String?

    enum CodingKeys: String, CodingKey {
        case id, kind, recipient, state, attempts
        case purchaseID = "purchase_id"
        case queuedAt = "queued_at"
        case lastError = "last_error"
    }

    init(_ email: QueuedEmail, state: String, lastError: String?) {
        id = email.id
        purchaseID = email.purchaseID
        kind = email.kind.rawValue
        recipient = email.recipient
        self.state = state
        attempts = email.attempts
        queuedAt = email.createdAt
        self.lastError = lastError
    }

    /// An e-mail queued again: retrying when it was tried before, else queued.
    public init(retried email: QueuedEmail) { self.init(email, state: email.attempts > 0 ? "retrying" : "queued", lastError: nil) }
}
