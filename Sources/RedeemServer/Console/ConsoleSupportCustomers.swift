import Foundation
import RedeemCore
import RedeemStore

/// What the console's Customers pages read: the list of recent customers with its filters, one customer with
/// everything about them, and their export.
extension ConsoleService {
    /// One customer as the page shows them: the stored facts, the CustomerInfo the app sees, and what the page's forms
    /// offer.
    struct PersonView: Sendable {
        let facts: CustomerFacts
        let info: CustomerInfo
        let entitlementIDs: [String]
        /// Each product's display name, where it has one.
        let productNames: [String: String]
        /// The app's offerings (the current one first), to choose this customer's from, and its products.
        let offerings: [Offering]
        let products: [Product]
        /// Whether Stripe is configured: refunds and renewal changes of Stripe purchases go through it.
        let stripeOn: Bool
        /// Whether e-mail is on: a new link may be e-mailed rather than shown.
        let mailOn: Bool
        let now: Date
    }

    func person(appID: String, id: String) async throws -> PersonView {
        let facts = try await store.customerFacts(appID: appID, customerID: id)
        // Looking is not a sighting: the customer's "last seen" and their place in the list stay as the app left them.
        let now = clock.now()
        let info = try await store.observedCustomerInfo(
            appID: appID, appUserID: try AppUserID(validating: facts.customer.originalAppUserID), now: now)
        let products = try await store.products(appID: appID)
        var names: [String: String] = [:]
        for product in products { names[product.id] = product.displayName }
        return PersonView(
            facts: facts, info: info, entitlementIDs: try await store.entitlements(appID: appID).map(\.id), productNames: names,
            offerings: try await store.offerings(appID: appID), products: products,
            stripeOn: support.stripe != nil, mailOn: support.emailQueue.mail != nil, now: now)
    }

    /// A page of the customer list: customers by latest activity, newest first, that the filter lists.
    struct CustomerList: Sendable {
        let customers: [CustomerListing]
        /// Where the next page starts (last seen, customer ID); nil on the last page.
        let next: (Date, String)?
        /// The scan stopped at `customerListScan` customers before filling the page: the page says so.
        let capped: Bool
    }

    static let customerListPage = 25
    /// At most this many customers are read to fill one filtered page; "Next" goes on from there.
    static let customerListScan = 2000

    func customers(
        appID: String, filter: CustomerListFilter, environment: CustomerListFilter.Environment, before: (Date, String)?
    ) async throws -> CustomerList {
        let now = clock.now()
        var found: [CustomerListing] = []
        var cursor = before
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
            return CustomerList(customers: Array(found.prefix(Self.customerListPage)), next: (last.lastSeen, last.id), capped: false)
        }
        return CustomerList(customers: found, next: exhausted ? nil : cursor, capped: !exhausted)
    }

    /// Everything about a customer as a JSON file; the export is audited (who, whom; never an address).
    func export(appID: String, customerID: String, actor: String) async throws -> (file: Data, customer: Customer) {
        let facts = try await store.customerFacts(appID: appID, customerID: customerID)
        let now = clock.now()
        let file = try CustomerExport(facts, appID: appID, at: now).json()
        try await support.recordExport(appID: appID, customerID: facts.customer.id, actor: actor, at: now)
        return (file, facts.customer)
    }
}

extension SupportService {
    /// An export of a customer's data, in the audit log: a read that hands the data over is recorded like a write.
    func recordExport(appID: String, customerID: String, actor: String, at now: Date) async throws {
        try await store.recordRequest(
            AuditEntry(at: now, actor: actor, action: "customer.export", objectType: "customer", objectID: customerID, appID: appID))
    }
}
