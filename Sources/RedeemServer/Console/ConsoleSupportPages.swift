import RedeemCore

/// The support pages' models: the customer list and search, the customer, a new link, the audit log.
struct SearchPage: PageModel {
    struct Result: Sendable {
        let appUserID: String
        let matched: String
        let lastSeen: String
        let url: String
    }

    /// A recent customer in the list.
    struct Row: Sendable {
        let name: String
        let appUserID: String?
        let email: String?
        let status: String
        let statusClass: String
        let sandbox: Bool
        let lastSeen: String
        let url: String
    }

    /// A filter link, marked when it is the one shown.
    struct Filter: Sendable {
        let label: String
        let url: String
        let selected: Bool
    }

    var noApps = false
    var query = ""
    var searched = false
    var results: [Result] = []
    var noResults = false
    var previous: String?
    var next: String?
    /// The list of recent customers (when nothing is searched), its filters and what to do when it is empty.
    var listing = false
    var customers: [Row] = []
    var filters: [Filter] = []
    var environments: [Filter] = []
    var filtered = false
    var emptyList: String?
    var capped = false
    var firstPage: String?
    var notice: String?
}

/// One customer, centred on the person: who they are and what they have at the top, their purchases with the support
/// actions (the most recent open, the rest folded), then one history, newest first, a page at a time.
struct CustomerPage: PageModel {
    struct Person: Sendable {
        let id: String
        let appUserID: String
        /// The address to show (masked for a role that may not see addresses), if any is known.
        let email: String?
        let masked: Bool
        let anonymous: Bool
        let firstSeen: String
        let lastSeen: String
    }

    struct Entitlement: Sendable {
        let id: String
        let product: String
        let active: Bool
        let expires: String
    }

    struct Fact: Sendable {
        let label: String
        let value: String
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

    struct Entry: Sendable {
        let at: String
        let kind: String
        let summary: String
        let detail: String?
        let link: String?
        let problem: Bool
        /// A failed or retrying e-mail that may be sent again.
        let retryEmailID: String?
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
        /// `state` as a CSS class name ("in-grace").
        let stateClass: String
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
        let email: String?
        /// The language its e-mails speak, in words ("German"); nil for English by default.
        let language: String?
        let expires: String?
        let cancelledAt: String?
        /// Why, when the buyer said (`CancellationFeedback`'s label).
        let cancellationReason: String?
        let price: String?
        /// Where its term stands (`PurchaseTerm`), in words.
        let term: String?
        /// The other plans of its group it may switch to (`SupportService.planOptions`), and whether there are any.
        var plans: [Choice] = []
        var switchable = false
        /// "Pro monthly (monthly)": the plan a switch waiting for the period's end renews as, if one does.
        var scheduledPlan: String? = nil
        /// "fraudulent · lost · 49.99 USD (du_…)": its payment's dispute, if the buyer's bank opened one.
        var dispute: String? = nil
        /// When the buyer ticked the box agreeing to the app's terms at checkout, and which terms (`TermsConsent`).
        var termsConsent: Consent? = nil
    }

    struct Consent: Sendable {
        let at: String
        let url: String
    }

    let customer: Person
    let aliases: [String]
    /// `$displayName`, `$email`, `$phoneNumber` and the like, at the top.
    let keyAttributes: [Fact]
    let attributes: [Attribute]
    /// Active entitlements, with their expiry.
    let entitlements: [Entitlement]
    let lapsedEntitlements: [Entitlement]
    let openPurchases: [PurchaseRow]
    let foldedPurchases: [PurchaseRow]
    let noPurchases: Bool
    let feed: [Entry]
    /// The feed's next, older page; and the way back to its start.
    var older: String?
    var newest: String?
    let grantEntitlements: [String]
    let mayGrant: Bool
    let durations: [Choice]
    /// This customer's current offering to choose: the app's own first (the empty value), then each offering.
    let offeringChoices: [Choice]
    /// The reasons support may record when cancelling for a buyer (optional), each as `value` and `label`.
    let cancellationReasons = CancellationFeedback.allCases.map { Choice(value: $0.rawValue, label: $0.label) }
    /// The grant form's own ID, new with each page: its submits, however many, grant once.
    var grantID = ""
    var notice: String?
    /// The erase form as typed, and why it was refused.
    var eraseTyped = ""
    var eraseError: String?
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
