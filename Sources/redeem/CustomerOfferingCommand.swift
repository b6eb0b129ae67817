import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer
import RedeemStore

extension Customers {
    /// The admin API's answer: the offering chosen for a customer, if any.
    struct ChosenOffering: Codable {
        var offeringID: String?
        var chosenAt: Date?

        enum CodingKeys: String, CodingKey {
            case offeringID = "offering_id"
            case chosenAt = "chosen_at"
        }
    }

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
                    return ChosenOffering(offeringID: chosen?.offeringID, chosenAt: chosen?.setAt)
                },
                remote: { admin in
                    let path = "/admin/v1/apps/\(segment(appID))/customers/\(segment(user))/offering"
                    if let offering { return try await admin.send(.PUT, path, body: ["offering_id": offering], as: ChosenOffering.self) }
                    return try await admin.send(remove ? .DELETE : .GET, path, as: ChosenOffering.self)
                })
            if json { return try Output.json(chosen) }
            if let id = chosen.offeringID, let at = chosen.chosenAt {
                print("\(user) sees \(id) as current (chosen \(ISODate.format(at))).")
            } else {
                print("\(user) sees the app's own current offering (none chosen).")
            }
        }
    }
}
