import ArgumentParser
import Foundation
import OpenAPIRuntime
import RedeemCore
import RedeemServer

/// `redeem offerings …`: what RevenueCat's SDKs show on a paywall (`GET /v1/subscribers/{id}/offerings`).
struct Offerings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Offerings: packages of products that RevenueCat's SDKs show; one is current.",
        subcommands: [Create.self, Replace.self, List.self, Delete.self]
    )

    /// The offering's fields, shared by `create` and `replace`.
    struct Fields: ParsableArguments {
        @Option(help: "The offering's identifier, e.g. default.")
        var id: String
        @Option var description: String = ""
        @Option(help: "A package, as IDENTIFIER=PRODUCT (e.g. $rc_monthly=pro_monthly); repeat for several, in order.")
        var package: [String] = []
        @Option(help: "Free-form JSON object the paywall reads.")
        var metadata: String = "{}"
        @Flag(help: "Make it the current offering (the app's other one stops being current).")
        var current = false

        var changes: AdminService.OfferingChanges {
            get throws {
                let packages = try package.map { text -> Offering.Package in
                    let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
                    guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                        throw ValidationError("--package takes IDENTIFIER=PRODUCT, e.g. $rc_monthly=pro_monthly")
                    }
                    return Offering.Package(id: parts[0], productID: parts[1])
                }
                return AdminService.OfferingChanges(description: description, metadataJSON: metadata, isCurrent: current, packages: packages)
            }
        }

        /// The admin API's body for the same offering.
        var body: Schemas.OfferingInput {
            get throws {
                let changes = try changes
                return Schemas.OfferingInput(
                    identifier: id, description: changes.description,
                    metadata: try JSONDecoder().decode(OpenAPIObjectContainer.self, from: Data(changes.metadataJSON.utf8)),
                    isCurrent: changes.isCurrent, packages: changes.packages.map { .init(identifier: $0.id, productId: $0.productID) })
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an offering.")
        @OptionGroup var app: AppOption
        @OptionGroup var fields: Fields
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let offering = try await target.run(
                local: { try await $0.createOffering(appID: appID, id: fields.id, try fields.changes) },
                remote: { admin in
                    let body = try fields.body
                    return try await admin.call { try await $0.createOffering(path: .init(appId: appID), body: .json(body)) }.created.body.json
                }
            )
            if json { return try Output.json(offering) }
            print("Created offering \(offering.id) with \(offering.packages.count) packages\(offering.isCurrent ? " (current)" : "").")
        }
    }

    struct Replace: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Replace an offering's description, metadata, packages and whether it is current.")
        @OptionGroup var app: AppOption
        @OptionGroup var fields: Fields
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let offering = try await target.run(
                local: { try await $0.replaceOffering(appID: appID, id: fields.id, try fields.changes) },
                remote: { admin in
                    let (path, body) = (Operations.ReplaceOffering.Input.Path(appId: appID, offeringId: fields.id), try fields.body)
                    return try await admin.call { try await $0.replaceOffering(path: path, body: .json(body)) }.ok.body.json
                }
            )
            if json { return try Output.json(offering) }
            print("Replaced offering \(offering.id).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an app's offerings, the current one first.")
        @OptionGroup var app: AppOption
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let offerings = try await target.run(
                local: { try await $0.offerings(appID: appID) },
                remote: { admin in try await admin.call { try await $0.listOfferings(path: .init(appId: appID)) }.ok.body.json.offerings }
            )
            if json { return try Output.json(Operations.ListOfferings.Output.Ok.Body.JsonPayload(offerings: offerings)) }
            for offering in offerings {
                let packages = offering.packages.map { "\($0.id)=\($0.productID)" }.joined(separator: " ")
                print("\(offering.id)\(offering.isCurrent ? "  (current)" : "")  \(packages)")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an offering.")
        @OptionGroup var app: AppOption
        @Option var id: String
        @OptionGroup var target: AdminTarget

        func run() async throws {
            let appID = try app.id
            try await target.run(
                local: { try await $0.deleteOffering(appID: appID, id: id) },
                remote: { admin in _ = try await admin.call { try await $0.deleteOffering(path: .init(appId: appID, offeringId: id)) }.noContent }
            )
            print("Deleted offering \(id).")
        }
    }
}
