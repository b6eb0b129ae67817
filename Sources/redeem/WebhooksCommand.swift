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

    typealias Endpoint = Schemas.WebhookEndpoint

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
                remote: { admin in
                    try await admin.call {
                        try await $0.createWebhook(path: .init(appId: appID), body: .json(.init(url: url, authorization: authorization)))
                    }
                    .created.body.json
                }
            )
            if json { return try Output.json(endpoint) }
            print("Created endpoint \(endpoint.id) for \(endpoint.url).\nSigning secret (shown only now): \(endpoint.signingSecret ?? "")")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an app's endpoints.")
        @OptionGroup var app: AppOption
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let endpoints = try await target.runWebhooks(
                local: { try await $0.endpoints(appID: appID).map { Endpoint($0, showSecret: false) } },
                remote: { admin in try await admin.call { try await $0.listWebhooks(path: .init(appId: appID)) }.ok.body.json.webhooks ?? [] }
            )
            if json { return try Output.json(Operations.ListWebhooks.Output.Ok.Body.JsonPayload(webhooks: endpoints)) }
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
                remote: { admin in _ = try await admin.call { try await $0.disableWebhook(path: .init(appId: appID, endpointId: endpoint)) } }
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
                local: { try await $0.sendTestEvent(appID: appID) },
                remote: { admin in _ = try await admin.call { try await $0.sendTestWebhook(path: .init(appId: appID)) } })
            print("Test event queued; `redeem webhooks deliveries` shows how it went.")
        }
    }

    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The latest 100 deliveries with their state.")
        @OptionGroup var app: AppOption
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let deliveries = try await target.runWebhooks(
                local: { try await $0.deliveries(appID: appID) },
                remote: { admin in
                    try await admin.call { try await $0.listWebhookDeliveries(path: .init(appId: appID)) }.ok.body.json.deliveries ?? []
                }
            )
            if json { return try Output.json(Operations.ListWebhookDeliveries.Output.Ok.Body.JsonPayload(deliveries: deliveries)) }
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
                remote: { admin in
                    _ = try await admin.call { try await $0.replayWebhookDelivery(path: .init(appId: appID, deliveryId: delivery)) }
                }
            )
            print("Delivery \(delivery) queued again.")
        }
    }
}

extension Webhooks.Endpoint {
    /// An endpoint as the admin API shows it: the signing secret only when it was just created.
    init(_ endpoint: WebhookEndpoint, showSecret: Bool) {
        self.init(
            id: endpoint.id, appId: endpoint.appID, url: endpoint.url, hasAuthorization: endpoint.authorization != nil,
            createdAt: ISODate.format(endpoint.createdAt), disabledAt: endpoint.disabledAt.map(ISODate.format),
            signingSecret: showSecret ? endpoint.signingSecret : nil)
    }
}
