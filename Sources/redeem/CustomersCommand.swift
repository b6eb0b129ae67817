import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer
import RedeemStore

/// `redeem customers search|list|attributes|offering|export`: the console's search box and Customers list, for a terminal.
struct Customers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find customers, list them by state, read their attributes, choose their offering, export their data.",
        subcommands: [Search.self, List.self, Attributes.self, Offering.self, Export.self])

    struct Attributes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A customer's subscriber attributes (set by RevenueCat's SDKs or the app's backend), by any of its app user IDs.")
        @OptionGroup var app: AppOption
        @Option(help: "An app user ID or alias of the customer.")
        var user: String
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let list = try await target.run(
                local: { admin in
                    let records = try await admin.attributeRecords(appID: appID, appUserID: try AppUserID(validating: user))
                    return Schemas.CustomerAttributes(
                        attributes: records.map {
                            .init(key: $0.key, value: $0.value, updatedAt: $0.updatedAt, setWithSecretKey: $0.fromBackend)
                        })
                },
                remote: { admin in
                    try await admin.call { try await $0.listCustomerAttributes(path: .init(appId: appID, appUserId: user)) }.ok.body.json
                })
            if json { return try Output.json(list) }
            if list.attributes.isEmpty { print("No attributes for \(user).") }
            for attribute in list.attributes {
                let source = attribute.setWithSecretKey ? "backend" : "app"
                print("\(attribute.key)  \(attribute.value)  (\(source), \(ISODate.format(attribute.updatedAt)))")
            }
        }
    }

    /// A page of `customers search` (with what `q` matched) or `customers list` (with an address and the next page).
    typealias Found = Schemas.CustomerSearch

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find an app's customers by exact app user ID or alias, e-mail, purchase ID, store or Stripe ID.")
        @OptionGroup var app: AppOption
        @Option(name: .customLong("query"), help: "What to look for, e.g. buyer@example.com.")
        var query: String
        @Option(help: "Page (25 to a page).")
        var page: Int = 1
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let found = try await target.runSupport(
                publicURL: try PublicURL.resolve(nil),
                local: { support in
                    let (matches, more) = try await support.search(appID: appID, query: query, page: page)
                    return Found(
                        customers: matches.map {
                            .init(customerId: $0.customerID, originalAppUserId: $0.originalAppUserID, lastSeen: $0.lastSeen, matched: $0.matched)
                        }, more: more)
                },
                remote: { admin in
                    try await admin.call { try await $0.searchCustomers(path: .init(appId: appID), query: .init(q: query, page: page)) }
                        .ok.body.json
                })
            if json { return try Output.json(found) }
            if found.customers.isEmpty { print("No customer matches \"\(query)\" exactly.") }
            for match in found.customers {
                let matched = match.matched.map { "  matched by \($0)" } ?? ""
                print("\(match.customerId)  \(match.originalAppUserId)\(matched)  last seen \(ISODate.format(match.lastSeen))")
            }
            if found.more { print("More on --page \(page + 1).") }
        }
    }
}

extension Customers {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List an app's customers by latest activity, newest first, by state (as the console's Customers tab does).",
            discussion: "--status wont_renew lists everyone with a live subscription set to end with its period: who a win-back is for.")
        @OptionGroup var app: AppOption
        @Option(help: "all, active, trial, wont_renew, refunded or billing_issue.")
        var status: String = "all"
        @Option(help: "Count only production or sandbox purchases: any, production or sandbox.")
        var environment: String = "any"
        @Option(help: "The next page: the 'next' the page before printed.")
        var before: String?
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func validate() throws {
            guard CustomerListFilter(rawValue: status) != nil else {
                throw ValidationError("--status must be one of \(CustomerListFilter.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            guard CustomerListFilter.Environment(rawValue: environment) != nil else {
                throw ValidationError("--environment must be any, production or sandbox.")
            }
            if let before, CustomerFeed.Cursor(text: before) == nil { throw ValidationError("--before must be a 'next' that a page printed.") }
        }

        func run() async throws {
            let appID = try app.id
            let filter = CustomerListFilter(rawValue: status) ?? .all
            let scope = CustomerListFilter.Environment(rawValue: environment) ?? .any
            let listed = try await target.runSupport(
                publicURL: try PublicURL.resolve(nil),
                local: { support in
                    let list = try await support.customers(
                        appID: appID, filter: filter, environment: scope, before: before.flatMap(CustomerFeed.Cursor.init(text:)))
                    let next = list.next?.text
                    return Found(
                        customers: list.customers.map {
                            .init(
                                customerId: $0.customer.id, originalAppUserId: $0.customer.originalAppUserID, lastSeen: $0.customer.lastSeen,
                                email: $0.email)
                        }, more: next != nil, next: next)
                },
                remote: { admin in
                    let query = Operations.SearchCustomers.Input.Query(
                        status: .init(rawValue: status), environment: .init(rawValue: environment), before: before)
                    return try await admin.call { try await $0.searchCustomers(path: .init(appId: appID), query: query) }.ok.body.json
                })
            if json { return try Output.json(listed) }
            if listed.customers.isEmpty { print("No customer is listed as \(status).") }
            for row in listed.customers {
                print("\(row.customerId)  \(row.originalAppUserId)  \(row.email ?? "(no e-mail)")  last seen \(ISODate.format(row.lastSeen))")
            }
            if let next = listed.next { print("More with --before \(next)") }
        }
    }
}
