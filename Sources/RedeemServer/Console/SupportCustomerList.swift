import Foundation
import RedeemCore
import RedeemStore

/// The list of an app's customers by latest activity, newest first, that a filter lists (Core's `CustomerListFilter`):
/// the console's Customers tab, `GET /admin/v1/apps/{app}/customers` without `q`, and `redeem customers list`.
extension SupportService {
    /// A page of the customer list: customers by latest activity, newest first, that the filter lists.
    public struct CustomerList: Sendable {
        public let customers: [CustomerListing]
        /// Where the next page starts (last seen, customer ID); nil on the last page.
        public let next: CustomerFeed.Cursor?
        /// The scan stopped at `customerListScan` customers before filling the page: the page says so.
        public let capped: Bool
    }

    static let customerListPage = 25
    /// At most this many customers are read to fill one filtered page; "Next" goes on from there.
    static let customerListScan = 2000

    /// Throws `notFound` for an unknown app.
    public func customers(
        appID: String, filter: CustomerListFilter, environment: CustomerListFilter.Environment, before: CustomerFeed.Cursor?
    ) async throws -> CustomerList {
        _ = try await store.app(id: appID)  // an unknown app is "not found", not an empty list
        let now = clock.now()
        var found: [CustomerListing] = []
        var cursor = before.map { ($0.at, $0.id) }
        var scanned = 0
        var exhausted = false
        scan: while scanned < Self.customerListScan {
            let batch = try await store.recentCustomers(appID: appID, before: cursor, limit: min(200, Self.customerListScan - scanned))
            if batch.isEmpty {
                exhausted = true
                break
            }
            for listing in batch {
                scanned += 1
                cursor = (listing.customer.lastSeen, listing.customer.id)
                guard filter.matches(listing.purchases, environment: environment, now: now) else { continue }
                found.append(listing)
                if found.count > Self.customerListPage { break scan }
            }
        }
        if found.count > Self.customerListPage {
            let last = found[Self.customerListPage - 1].customer
            return CustomerList(
                customers: Array(found.prefix(Self.customerListPage)), next: CustomerFeed.Cursor(at: last.lastSeen, id: last.id), capped: false)
        }
        return CustomerList(customers: found, next: exhausted ? nil : cursor.map { CustomerFeed.Cursor(at: $0.0, id: $0.1) }, capped: !exhausted)
    }
}
