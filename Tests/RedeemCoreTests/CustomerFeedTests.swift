import Foundation
import RedeemCore
import Testing

/// The customer page's history: one feed, newest first, paged by a cursor that resumes exactly; the most recent
/// purchases open and the rest folded; and the list filters, judged with the one definition of access.
@Suite struct CustomerFeedTests {
    static let t0 = ISODate.parse("2026-03-01T00:00:00Z")!

    static func entry(_ minutes: Double, _ id: String, purchase: String? = nil) -> CustomerFeedEntry {
        CustomerFeedEntry(at: t0.addingTimeInterval(minutes * 60), kind: .email, id: id, purchaseID: purchase, summary: id)
    }

    @Test func entriesComeNewestFirstAndTiesByIDDescending() {
        let feed = CustomerFeed.page(
            [Self.entry(1, "a"), Self.entry(5, "b"), Self.entry(3, "c"), Self.entry(5, "d")], purchases: [])
        #expect(feed.entries.map(\.id) == ["d", "b", "c", "a"])
        #expect(feed.older == nil)
    }

    @Test func pagesResumeAfterTheCursorWithoutGapsOrRepeats() throws {
        // 95 entries, several at the same instant: every page follows the last, and together they are the whole feed.
        let all = (0..<95).map { Self.entry(Double($0 / 3), String(format: "e%03d", $0)) }
        var seen: [String] = []
        var cursor: CustomerFeed.Cursor? = nil
        var pages = 0
        repeat {
            let page = CustomerFeed.page(all.shuffled(), purchases: [], before: cursor, limit: 40)
            #expect(page.entries.count <= 40)
            seen += page.entries.map(\.id)
            // Through its text, as the "Show older" link carries it.
            cursor = try page.older.map { try #require(CustomerFeed.Cursor(text: $0.text)) }
            pages += 1
        } while cursor != nil && pages < 10
        #expect(pages == 3)
        #expect(seen == all.sorted(by: CustomerFeed.isNewer).map(\.id))
        #expect(Set(seen).count == 95)
    }

    @Test func theFiveMostRecentPurchasesAreOpenAndTheRestFolded() {
        let purchases = (0..<30).map { (id: "pur_\($0)", purchased: Self.t0.addingTimeInterval(Double($0) * 86_400)) }
        let page = CustomerFeed.page([], purchases: purchases.shuffled())
        #expect(page.openPurchaseIDs == ["pur_29", "pur_28", "pur_27", "pur_26", "pur_25"])
        #expect(page.foldedPurchaseIDs.count == 25 && page.foldedPurchaseIDs.first == "pur_24" && page.foldedPurchaseIDs.last == "pur_0")
        let few = CustomerFeed.page([], purchases: Array(purchases.prefix(2)))
        #expect(few.openPurchaseIDs == ["pur_1", "pur_0"] && few.foldedPurchaseIDs.isEmpty)
    }

    @Test func aCursorThatCannotBeReadIsRefused() {
        for text in ["", "abc", "12", ".x", "-5.x", "12.", "12." + String(repeating: "x", count: 201)] {
            #expect(CustomerFeed.Cursor(text: text) == nil, "\(text)")
        }
        let cursor = CustomerFeed.Cursor(at: Self.t0, id: "w:evt.1")
        #expect(CustomerFeed.Cursor(text: cursor.text) == cursor)
    }

    static func purchase(
        expires: Date?, sandbox: Bool = false, trial: Bool = false, refunded: Bool = false, grace: Date? = nil, billingIssue: Bool = false
    ) -> Purchase {
        Purchase(
            id: "pur_x", appID: "app", customerID: "cus", productID: "p", store: .rcBilling, isSandbox: sandbox, purchaseDate: t0,
            originalPurchaseDate: t0, expiresDate: expires, gracePeriodExpiresDate: grace, periodType: trial ? .trial : .normal,
            storeTransactionID: "t", price: nil, email: nil, billingIssuesDetectedAt: billingIssue ? t0 : nil, refundedAt: refunded ? t0 : nil,
            createdAt: t0)
    }

    @Test func listFiltersJudgeAccessAsCoreDefinesIt() {
        let now = Self.t0.addingTimeInterval(10 * 86_400)
        let later = now.addingTimeInterval(86_400)
        let earlier = now.addingTimeInterval(-86_400)
        let active = Self.purchase(expires: later)
        let expired = Self.purchase(expires: earlier)
        let lifetime = Self.purchase(expires: nil)
        let trial = Self.purchase(expires: later, trial: true)
        let lapsedTrial = Self.purchase(expires: earlier, trial: true)
        let refunded = Self.purchase(expires: later, refunded: true)
        let inGrace = Self.purchase(expires: earlier, grace: later)
        let sandbox = Self.purchase(expires: later, sandbox: true)
        #expect(CustomerListFilter.active.matches([expired, active], now: now))
        #expect(CustomerListFilter.active.matches([lifetime], now: now))
        #expect(!CustomerListFilter.active.matches([expired, refunded], now: now))
        // In the billing grace period a purchase still grants access, so the customer is active and has a billing issue.
        #expect(CustomerListFilter.active.matches([inGrace], now: now) && CustomerListFilter.billingIssue.matches([inGrace], now: now))
        #expect(!CustomerListFilter.billingIssue.matches([active, expired], now: now))
        #expect(CustomerListFilter.billingIssue.matches([Self.purchase(expires: later, billingIssue: true)], now: now))
        #expect(CustomerListFilter.trial.matches([trial], now: now) && !CustomerListFilter.trial.matches([lapsedTrial, active], now: now))
        #expect(CustomerListFilter.refunded.matches([refunded], now: now) && !CustomerListFilter.refunded.matches([expired], now: now))
        // Won't renew: a live subscription set to end with its period; not one that ended, a refunded one or a grant.
        var cancelled = active
        cancelled.unsubscribeDetectedAt = Self.t0
        var endedCancelled = expired
        endedCancelled.unsubscribeDetectedAt = Self.t0
        var refundedCancelled = refunded
        refundedCancelled.unsubscribeDetectedAt = Self.t0
        var revokedGrant = active
        revokedGrant.store = .promotional
        revokedGrant.unsubscribeDetectedAt = Self.t0
        #expect(CustomerListFilter.wontRenew.matches([expired, cancelled], now: now))
        #expect(!CustomerListFilter.wontRenew.matches([active, endedCancelled, refundedCancelled, revokedGrant], now: now))
        #expect(CustomerListFilter.all.matches([], now: now))
        // Environments: only that environment's purchases count, and "all" there needs one.
        #expect(CustomerListFilter.active.matches([sandbox], environment: .sandbox, now: now))
        #expect(!CustomerListFilter.active.matches([sandbox, expired], environment: .production, now: now))
        #expect(!CustomerListFilter.all.matches([], environment: .production, now: now))
        #expect(CustomerListFilter.all.matches([expired], environment: .production, now: now))
    }
}
