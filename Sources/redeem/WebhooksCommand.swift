import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer
import RedeemStore

struct Webhooks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Webhook endpoints for server notifications, their deliveries, replays and test events.",
        subcommands: [Create.self, List.self, Disable.self, Test.self, Deliveries.self, Replay.self]
    )

    /// An endpoint as the admin API shows it: the signing secret only when it was just created.
    struct Endpoint: Codable {
        let id: String
        let appID: String
        let url: String
        let hasAuthorization: Bool
        let signingSecret: String?
        let createdAt: Date
        let disabledAt: Date?

        init(_ endpoint: WebhookEndpoint, showSecret: Bool) {
            id = endpoint.id
            appID = endpoint.appID
            url = endpoint.url
            hasAuthorization = endpoint.authorization != nil
            signingSecret = showSecret ? endpoint.signingSecret : nil
            createdAt = endpoint.createdAt
            disabledAt = endpoint.disabledAt
        }

        enum CodingKeys: String, CodingKey {
            case id, url
            case appID = "app_id"
            case hasAuthorization = "has_authorization"
            case signingSecret = "signing_secret"
            case createdAt = "created_at"
            case disabledAt = "disabled_at"
        }
    }

    struct CreateRequest: Encodable {
        let url: String
        let authorization: String?
    }

    static func path(_ app: AppOption, _ rest: String = "") throws -> String { "/admin/v1/apps/\(segment(try app.id))/webhooks" + rest }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an endpoint; prints its signing secret (shown once).")
        @OptionGroup var app: AppOption
        @Option(help: "https URL (http only for localhost).")
        var url: String
        @Option(help: "Sent verbatim as the Authorization header of every delivery.")
        var authorization: String?
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let endpoint = try await target.runWebhooks(
                local: { Endpoint(try await $0.createEndpoint(appID: appID, url: url, authorization: authorization), showSecret: true) },
                remote: { try await $0.send(.POST, try path(app), body: CreateRequest(url: url, authorization: authorization), as: Endpoint.self) }
            )
            if json { return try Output.json(endpoint) }
            print("Created endpoint \(endpoint.id) for \(endpoint.url).\nSigning secret (shown only now): \(endpoint.signingSecret ?? "")")
        }
    }

    struct EndpointList: Codable { let webhooks: [Endpoint] }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an app's endpoints.")
        @OptionGroup var app: AppOption
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let endpoints = try await target.runWebhooks(
                local: { try await $0.endpoints(appID: appID).map { Endpoint($0, showSecret: false) } },
                remote: { try await $0.send(.GET, try path(app), as: EndpointList.self).webhooks }
            )
            if json { return try Output.json(EndpointList(webhooks: endpoints)) }
            for e in endpoints { print("\(e.id)  \(e.disabledAt == nil ? "active  " : "disabled")  \(e.url)") }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop sending to an endpoint.")
        @OptionGroup var app: AppOption
        @Option(help: "The endpoint's ID (whk_…).")
        var endpoint: String
        @OptionGroup var target: AdminTarget

        func run() async throws {
            let appID = try app.id
            try await target.runWebhooks(
                local: { try await $0.disableEndpoint(appID: appID, id: endpoint) },
                remote: { _ = try await $0.sendRaw(.DELETE, try path(app, "/\(segment(endpoint))")) }
            )
            print("Endpoint \(endpoint) is disabled.")
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Queue a test event to every active endpoint of the app.")
        @OptionGroup var app: AppOption
        @OptionGroup var target: AdminTarget

        func run() async throws {
            let appID = try app.id
            try await target.runWebhooks(
                local: { try await $0.sendTestEvent(appID: appID) }, remote: { _ = try await $0.sendRaw(.POST, try path(app, "/test")) })
            print("Test event queued; `redeem webhooks deliveries` shows how it went.")
        }
    }

    struct DeliveryList: Codable { let deliveries: [WebhookDelivery] }

    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The latest 100 deliveries with their state.")
        @OptionGroup var app: AppOption
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let deliveries = try await target.runWebhooks(
                local: { try await $0.deliveries(appID: appID) },
                remote: { try await $0.send(.GET, try path(app, "/deliveries"), as: DeliveryList.self).deliveries }
            )
            if json { return try Output.json(DeliveryList(deliveries: deliveries)) }
            for d in deliveries {
                let state = d.deliveredAt != nil ? "delivered" : d.failedAt != nil ? "failed" : "pending"
                print(
                    "\(d.id)  \(state.padding(toLength: 9, withPad: " ", startingAt: 0))  \(d.attempts) attempts  \(d.eventType)  \(ISODate.format(d.createdAt))"
                )
            }
        }
    }

    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a delivery again.")
        @OptionGroup var app: AppOption
        @Option(help: "The delivery's ID.")
        var delivery: String
        @OptionGroup var target: AdminTarget

        func run() async throws {
            let appID = try app.id
            try await target.runWebhooks(
                local: { try await $0.replay(appID: appID, deliveryID: delivery) },
                remote: { _ = try await $0.sendRaw(.POST, try path(app, "/deliveries/\(segment(delivery))/replay")) }
            )
            print("Delivery \(delivery) queued again.")
        }
    }
}
