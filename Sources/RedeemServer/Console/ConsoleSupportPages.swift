/// The support pages' models: customer search, the customer, a new link, the audit log.
struct SearchPage: PageModel {
    struct Result: Sendable {
        let appUserID: String
        let matched: String
        let lastSeen: String
        let url: String
    }

    var noApps = false
    var query = ""
    var searched = false
    var results: [Result] = []
    var noResults = false
    var previous: String?
    var next: String?
}

struct CustomerPage: PageModel {
    struct Person: Sendable {
        let id: String
        let appUserID: String
        let email: String?
        let firstSeen: String
        let lastSeen: String
    }

    struct Entitlement: Sendable {
        let id: String
        let product: String
        let active: Bool
        let expires: String
    }

    struct Attribute: Sendable {
        let key: String
        let value: String
        let updated: String
        let source: String
        let trusted: Bool
        /// What `$email` is used for, given who set it.
        let use: String?
    }

    struct Attempt: Sendable {
        let at: String
        let appUserID: String
        let outcome: String
    }

    struct Link: Sendable {
        let issued: String
        let expires: String
        let opened: String?
        let redeemed: String?
        let redeemedBy: String?
    }

    struct Email: Sendable {
        let id: String
        let kind: String
        let to: String
        let queued: String
        let state: String
        let attempts: String
        let retryable: Bool
        let error: String?
    }

    struct Webhook: Sendable {
        let type: String
        let at: String
        let state: String
        let attempts: String
    }

    struct PurchaseRow: Sendable {
        let id: String
        let product: String
        let productID: String
        let store: String
        let sandbox: Bool
        let fastClock: Bool
        let purchased: String
        let state: String
        let transaction: String
        let isGrant: Bool
        let refunded: Bool
        let refundable: Bool
        let cancellable: Bool
        let resumable: Bool
        let needsStripe: Bool
        let revocable: Bool
        let transferable: Bool
        let linkable: Bool
        /// A new link may go by e-mail (e-mail is on and the purchase has an address).
        let emailable: Bool
        let attempts: [Attempt]
        let links: [Link]
        let emails: [Email]
        let webhooks: [Webhook]
        let email: String?
        let expires: String?
        let cancelledAt: String?
        let price: String?
    }

    let customer: Person
    let aliases: [String]
    let attributes: [Attribute]
    let entitlements: [Entitlement]
    let noEntitlements: Bool
    let purchases: [PurchaseRow]
    let noPurchases: Bool
    let grantEntitlements: [String]
    let mayGrant: Bool
    let durations: [Choice]
    var notice: String?
}

/// A new link for a purchase, shown once with its QR code.
struct NewLinkPage: PageModel {
    let purchaseID: String
    let httpsURL: String
    let schemeURL: String
    let expires: String
    let emailed: Bool
    let back: String
    let qrSVG: String
    let email: String?
}

struct AuditLogPage: PageModel {
    struct Entry: Sendable {
        let at: String
        let actor: String
        let action: String
        let object: String
        let detail: String
    }

    let entries: [Entry]
    let actors: [Choice]
    let actions: [Choice]
    let object: String
    let filtered: Bool
    var older: String?
    var newest: String?
}
