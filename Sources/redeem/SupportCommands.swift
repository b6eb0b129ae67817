import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer
import RedeemStore

/// `redeem customers search`: the console's search box, for a terminal.
struct Customers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Find customers.", subcommands: [Search.self])

    struct Match: Codable {
        let customerID: String
        let originalAppUserID: String
        let lastSeen: Date
        let matched: String

        enum CodingKeys: String, CodingKey {
            case matched
            case customerID = "customer_id"
            case originalAppUserID = "original_app_user_id"
            case lastSeen = "last_seen"
        }
    }

    struct Found: Codable {
        let customers: [Match]
        let more: Bool
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
                print("\(match.customerID)  \(match.originalAppUserID)  matched by \(match.matched)  last seen \(ISODate.format(match.lastSeen))")
            }
            if found.more { print("More on --page \(page + 1).") }
        }
    }
}

extension Purchases {
    struct SentLink: Codable {
        let redemptionURL: String
        let redemptionHTTPSURL: String
        let expiresAt: Date
        let emailed: Bool

        enum CodingKeys: String, CodingKey {
            case emailed
            case redemptionURL = "redemption_url"
            case redemptionHTTPSURL = "redemption_https_url"
            case expiresAt = "expires_at"
        }
    }

    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a new single-use redemption link for a purchase (audited); through --server it is also e-mailed.")
        @OptionGroup var app: AppOption
        @Option(help: "The purchase ID (pur_…).")
        var purchase: String
        @Option(help: "Public base URL of the server, for the HTTPS link (env REDEEM_PUBLIC_URL; default http://127.0.0.1:8080).")
        var publicURL: String?
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let sent = try await target.runSupport(
                publicURL: try PublicURL.resolve(publicURL),
                local: { support in
                    let sent = try await support.sendNewLink(appID: appID, purchaseID: purchase, actor: "cli")
                    return SentLink(
                        redemptionURL: sent.link.customSchemeURL, redemptionHTTPSURL: sent.link.httpsURL, expiresAt: sent.link.expiresAt,
                        emailed: sent.emailed)
                },
                remote: { try await $0.send(.POST, "/admin/v1/apps/\(segment(appID))/purchases/\(segment(purchase))/links", as: SentLink.self) })
            if json { return try Output.json(sent) }
            print("New link (single use, expires \(ISODate.format(sent.expiresAt))): \(sent.redemptionHTTPSURL)\n  app: \(sent.redemptionURL)")
            print(sent.emailed ? "Also e-mailed to the purchase's address." : "Not e-mailed.")
        }
    }

    struct Refund: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Refund a sandbox purchase now (audited); paid purchases are refunded in Stripe.")
        @OptionGroup var app: AppOption
        @Option(help: "The purchase ID (pur_…).")
        var purchase: String
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let refunded = try await target.runSupport(
                publicURL: try PublicURL.resolve(nil),
                local: { try await $0.refund(appID: appID, purchaseID: purchase, actor: "cli") },
                remote: { try await $0.send(.POST, "/admin/v1/apps/\(segment(appID))/purchases/\(segment(purchase))/refund", as: Purchase.self) })
            if json { return try Output.json(refunded) }
            print("Refunded \(refunded.id) (\(refunded.productID)); it grants nothing now.")
        }
    }
}
