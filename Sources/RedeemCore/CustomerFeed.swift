import Foundation

/// One thing that happened to a customer, as the console's history shows it: a purchase, a renewal, a link, an
/// attempt, an e-mail, a webhook event or a support action. `id` is unique within the customer's feed and orders
/// entries of the same instant.
public struct CustomerFeedEntry: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case purchase, renewal, refund, cancellation, linkIssued, linkRedeemed, attempt, email, webhook, support
    }

    public var at: Date
    public var kind: Kind
    public var id: String
    /// The purchase it is about, if any.
    public var purchaseID: String?
    /// What happened, in a few words.
    public var summary: String
    /// A short detail (a product, an outcome, an address), if any.
    public var detail: String?
    /// Where to read more, if anywhere.
    public var link: String?
    /// A refusal, a failure: shown as a problem.
    public var problem: Bool

    public init(
        at: Date, kind: Kind, id: String, purchaseID: String? = nil, summary: String, detail: String? = nil, link: String? = nil,
        problem: Bool = false
    ) {
        self.at = at
        self.kind = kind
        self.id = id
        self.purchaseID = purchaseID
        self.summary = summary
        self.detail = detail
        self.link = link
        self.problem = problem
    }
}

/// The customer page's history: every entry in one feed, newest first, a page at a time; and which purchases are shown
/// open (the most recent few) and which are folded away, so a customer with many purchases stays a short page.
public enum CustomerFeed {
    /// Where a page of the feed starts: entries strictly older than this one.
    public struct Cursor: Hashable, Sendable {
        public var at: Date
        public var id: String

        public init(at: Date, id: String) {
            self.at = at
            self.id = id
        }

        /// `<milliseconds>.<id>`, for a GET link.
        public var text: String { "\(Int64((at.timeIntervalSince1970 * 1000).rounded())).\(id)" }

        public init?(text: String) {
            guard let dot = text.firstIndex(of: "."), let ms = Int64(text[..<dot]), ms >= 0 else { return nil }
            let id = String(text[text.index(after: dot)...])
            guard !id.isEmpty, id.count <= 200 else { return nil }
            self.init(at: Date(timeIntervalSince1970: Double(ms) / 1000), id: id)
        }
    }

    public struct Page: Hashable, Sendable {
        /// Newest first.
        public var entries: [CustomerFeedEntry]
        /// The next (older) page's cursor; nil on the last page.
        public var older: Cursor?
        /// The purchases shown open, most recent first.
        public var openPurchaseIDs: [String]
        /// The older purchases, folded away, most recent first.
        public var foldedPurchaseIDs: [String]
    }

    public static let pageSize = 40
    public static let openPurchases = 5

    /// Newest first; at the same instant, the greater ID first, so the order is total and a cursor resumes exactly.
    public static func isNewer(_ a: CustomerFeedEntry, than b: CustomerFeedEntry) -> Bool {
        a.at != b.at ? a.at > b.at : a.id > b.id
    }

    /// One page of `entries` (any order) after `before`, and the purchases (ID and purchase date) split into the
    /// `open` most recent and the rest.
    public static func page(
        _ entries: [CustomerFeedEntry], purchases: [(id: String, purchased: Date)], before: Cursor? = nil, limit: Int = pageSize,
        open: Int = openPurchases
    ) -> Page {
        let sorted = entries.sorted(by: isNewer)
        let after =
            before.map { cursor in
                sorted.filter { $0.at < cursor.at || ($0.at == cursor.at && $0.id < cursor.id) }
            } ?? sorted
        let shown = Array(after.prefix(max(1, limit)))
        let older = after.count > shown.count ? shown.last.map { Cursor(at: $0.at, id: $0.id) } : nil
        let byRecency = purchases.sorted { $0.purchased != $1.purchased ? $0.purchased > $1.purchased : $0.id > $1.id }.map(\.id)
        return Page(
            entries: shown, older: older, openPurchaseIDs: Array(byRecency.prefix(max(0, open))),
            foldedPurchaseIDs: Array(byRecency.dropFirst(max(0, open))))
    }
}
