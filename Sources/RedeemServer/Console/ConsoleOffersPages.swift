/// The offers page's model: offers, the active-offer limits, code batches, custom codes, batches being generated,
/// the forms and the quarter's quota.
struct OffersPageModel: PageModel {
    struct OfferRow: Sendable {
        let id: String
        let name: String
        let product: String
        let active: Bool
        let terms: String
        let who: String
        /// An offer priced in another currency than its product.
        let warning: String?
        let window: String?
        let redemptions: String
    }

    struct Limit: Sendable {
        let product: String
        let active: Int
        let max: Int
        let full: Bool
    }

    struct Batch: Sendable {
        let id: String
        let offer: String
        let count: String
        let redeemed: String
        let created: String
        let expires: String
        let expired: Bool
        let active: Bool
    }

    struct CustomCode: Sendable {
        let id: String
        let code: String
        let offer: String
        let active: Bool
        let used: String
        let cap: String
        let full: Bool
        let expires: String?
        let expired: Bool
        /// The offer's page with this code, production and sandbox; none when the code cannot be used now.
        let links: [ConsoleLink]
    }

    struct Job: Sendable {
        let id: String
        let count: String
        let ready: Bool
        let percent: Int
    }

    struct ActiveOffer: Sendable {
        let id: String
        let name: String
        let selectedForCode: Bool
    }

    let offers: [OfferRow]
    let limits: [Limit]
    let batches: [Batch]
    let customCodes: [CustomCode]
    let jobs: [Job]
    let products: [Choice]
    let activeOffers: [ActiveOffer]
    let durations: [Choice]
    let modes: [Choice]
    let offerForm: FormFields
    let codeForm: FormFields
    let quarter: String
    let used: String
    let quota: String
    let usedPercent: Int
    let maxCount: Int
    let maxCap: Int
    let defaultExpiry: String
    let today: String
    let latestExpiry: String
    let error: String?
    let notice: String?
    /// The batch form's own ID, new with each page: its submits, however many, start one batch.
    let batchFormID: String
}

/// A batch of codes being generated: its progress, then the download once.
struct BatchJobPage: PageModel {
    let count: String
    let percent: Int
    let jobID: String
    let offerID: String
    var running = false
    var phase: String?
    var ready = false
    var downloading = false
    var downloaded: String?
    var failed: String?
    var dropped = false
    var batchID: String?
}
