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

    struct AttributeList: Codable {
        struct Attribute: Codable {
            let key: String
            let value: String
            let updatedAt: Date
            let setWithSecretKey: Bool

            enum CodingKeys: String, CodingKey {
                case key, value
                case updatedAt = "updated_at"
                case setWithSecretKey = "set_with_secret_key"
            }
        }

        let attributes: [Attribute]
    }

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
                    return AttributeList(
                        attributes: records.map {
                            .init(key: $0.key, value: $0.value, updatedAt: $0.updatedAt, setWithSecretKey: $0.fromBackend)
                        })
                },
                remote: {
                    try await $0.send(
                        .GET, "/admin/v1/apps/\(segment(appID))/customers/\(segment(user))/attributes", as: AttributeList.self)
                })
            if json { return try Output.json(list) }
            if list.attributes.isEmpty { print("No attributes for \(user).") }
            for attribute in list.attributes {
                let source = attribute.setWithSecretKey ? "backend" : "app"
                print("\(attribute.key)  \(attribute.value)  (\(source), \(ISODate.format(attribute.updatedAt)))")
            }
        }
    }

    /// A customer as the admin API's search and list answer them; `matched` (what `q` matched) in a search only.
    struct Match: Codable {
        let customerID: String
        let originalAppUserID: String
        let lastSeen: Date
        var matched: String? = nil
        /// In a list: the address of their latest purchase that has one.
        var email: String? = nil

        enum CodingKeys: String, CodingKey {
            case matched, email
            case customerID = "customer_id"
            case originalAppUserID = "original_app_user_id"
            case lastSeen = "last_seen"
        }
    }

    /// A page of `customers search` or `customers list`; `next` (a list's next page) in a list only.
    struct Found: Codable {
        let customers: [Match]
        let more: Bool
        var next: String? = nil
    }

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
                            Match(customerID: $0.customerID, originalAppUserID: $0.originalAppUserID, lastSeen: $0.lastSeen, matched: $0.matched)
                        }, more: more)
                },
                remote: { admin in
                    var components = URLComponents()
                    components.queryItems = [URLQueryItem(name: "q", value: query), URLQueryItem(name: "page", value: String(page))]
                    return try await admin.send(.GET, "/admin/v1/apps/\(segment(appID))/customers\(components.string ?? "")", as: Found.self)
                })
            if json { return try Output.json(found) }
            if found.customers.isEmpty { print("No customer matches \"\(query)\" exactly.") }
            for match in found.customers {
                let matched = match.matched.map { "  matched by \($0)" } ?? ""
                print("\(match.customerID)  \(match.originalAppUserID)\(matched)  last seen \(ISODate.format(match.lastSeen))")
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
                            Match(
                                customerID: $0.customer.id, originalAppUserID: $0.customer.originalAppUserID, lastSeen: $0.customer.lastSeen,
                                email: $0.email)
                        }, more: next != nil, next: next)
                },
                remote: { admin in
                    var components = URLComponents()
                    components.queryItems =
                        [URLQueryItem(name: "status", value: status), URLQueryItem(name: "environment", value: environment)]
                        + (before.map { [URLQueryItem(name: "before", value: $0)] } ?? [])
                    return try await admin.send(.GET, "/admin/v1/apps/\(segment(appID))/customers\(components.string ?? "")", as: Found.self)
                })
            if json { return try Output.json(listed) }
            if listed.customers.isEmpty { print("No customer is listed as \(status).") }
            for row in listed.customers {
                print("\(row.customerID)  \(row.originalAppUserID)  \(row.email ?? "(no e-mail)")  last seen \(ISODate.format(row.lastSeen))")
            }
            if let next = listed.next { print("More with --before \(next)") }
        }
    }
}
