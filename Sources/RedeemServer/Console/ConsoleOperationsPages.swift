/// The operations pages' models: unsent e-mails, webhooks and their delivery log, API keys.
struct EmailsPage: PageModel {
    struct Row: Sendable {
        let id: String
        let kind: String
        let to: String
        let queued: String
        let attempts: String
        let purchase: String?
        let state: String
        let next: String
        let error: String?
    }

    let emails: [Row]
    let failedCount: Int
    let anyFailed: Bool
    let mailOn: Bool
    let notice: String?
}

struct WebhooksPage: PageModel {
    struct Endpoint: Sendable {
        let id: String
        let url: String
        let created: String
        let live: Bool
        let hasAuthorization: Bool
    }

    /// A row of the delivery log: the event, its state, and the latest attempt's answer and latency.
    struct Delivery: Sendable {
        let type: String
        let at: String
        let state: String
        let attempts: String
        let id: String
        let eventID: String
        let answer: String?
        let ms: Int64?
        let ok: Bool
    }

    let endpoints: [Endpoint]
    let deliveries: [Delivery]
    let anyLive: Bool
    let notice: String?
    /// The add form's own ID, new with each page: its submits, however many, add one endpoint.
    let formID: String
}

struct KeysPage: PageModel {
    struct Key: Sendable {
        let id: String
        let kind: String
        let prefix: String
        let created: String
        let live: Bool
        let label: String?
        let revoked: String?
        let lastUsed: String
    }

    let keys: [Key]
    let kinds: [Choice]
    let notice: String?
    /// The create form's own ID, new with each page: its submits, however many, create one key.
    let formID: String
}
