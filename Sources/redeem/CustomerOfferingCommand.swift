import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer
import RedeemStore

extension Customers {
    /// `redeem customers offering`: the console customer page's "Current offering", for a terminal.
    struct Offering: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show, choose or remove the offering a customer sees as current (RevenueCat's offering override; audited).",
            discussion:
                "With neither --set nor --remove it shows the choice. A chosen offering is what the customer's RevenueCat SDKs read as current, under every alias; --remove gives them the app's own again."
        )
        @OptionGroup var app: AppOption
        @Option(help: "An app user ID or alias of the customer (created if new when choosing).")
        var user: String
        @Option(name: .customLong("set"), help: ArgumentHelp("The offering to make current for this customer.", valueName: "offering"))
        var offering: String?
        @Flag(help: "Give the customer the app's own current offering again.")
        var remove = false
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func validate() throws {
            if offering != nil, remove { throw ValidationError("Give --set or --remove, not both.") }
            if offering?.isEmpty == true { throw ValidationError("--set needs an offering's identifier.") }
            _ = try AppUserID(validating: user)
        }

        func run() async throws {
            let appID = try app.id
            let appUserID = try AppUserID(validating: user)
            let chosen = try await target.run(
                store: { store in
                    let service = OfferingOverrideService(store: store)
                    let chosen =
                        if offering != nil || remove {
                            try await service.set(appID: appID, appUserID: appUserID, offeringID: offering, actor: CLI.actor)
                        } else {
                            try await service.current(appID: appID, appUserID: appUserID)
                        }
                    return Schemas.CustomerOffering(offeringId: chosen?.offeringID, chosenAt: chosen?.setAt)
                },
                remote: { admin in
                    try await admin.call { client in
                        if let offering {
                            return try await client.setCustomerOffering(
                                path: .init(appId: appID, appUserId: user), body: .json(.init(offeringId: offering))
                            ).ok.body.json
                        }
                        if remove { return try await client.removeCustomerOffering(path: .init(appId: appID, appUserId: user)).ok.body.json }
                        return try await client.getCustomerOffering(path: .init(appId: appID, appUserId: user)).ok.body.json
                    }
                })
            if json { return try Output.json(chosen) }
            if let id = chosen.offeringId, let at = chosen.chosenAt {
                print("\(user) sees \(id) as current (chosen \(ISODate.format(at))).")
            } else {
                print("\(user) sees the app's own current offering (none chosen).")
            }
        }
    }
}
