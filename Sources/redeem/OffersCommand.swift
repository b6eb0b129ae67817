import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer
import RedeemStore

struct Offers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Offers (what a code grants), their usage and the redemption report.",
        subcommands: [Create.self, List.self, Activate.self, Deactivate.self, Usage.self, Report.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an offer on a product.")
        @OptionGroup var app: AppOption
        @Option var product: String
        @Option(help: "The name transactions and notifications carry (offer_code_ref_name); unique per app.")
        var referenceName: String
        @Option(help: "free_trial, pay_as_you_go or pay_up_front")
        var paymentMode: String
        @Option(help: "Subscriptions: P3D, P1W, P2W, P1M, P2M, P3M, P6M or P1Y.")
        var duration: String?
        @Option(help: "Subscriptions: how many durations the offer lasts (1 for pay_up_front).")
        var periods: Int?
        @Option(help: "Paid offers: the price, e.g. 0.99 (per period for pay_as_you_go).")
        var price: String?
        @Option var currency: String = "USD"
        @Option(help: "Required: who may redeem: new, existing or expired; repeat for several.")
        var eligibility: [String] = []
        @Option(help: "ISO-8601 start of the validity window.")
        var startsAt: String?
        @Option(help: "ISO-8601 end of the validity window.")
        var endsAt: String?
        @Flag(help: "Create it switched off.")
        var inactive = false
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func validate() throws {
            if eligibility.isEmpty { throw ValidationError("--eligibility is required: new, existing or expired (repeat for several)") }
        }

        func run() async throws {
            let appID = try app.id
            let input = OfferInput(
                productID: product, referenceName: referenceName, paymentMode: paymentMode, duration: duration, periods: periods,
                price: try price.map { try PriceInput(amount: $0, currency: currency) }, eligibility: eligibility,
                startsAt: try CLIDate.parse(startsAt, option: "--starts-at"), endsAt: try CLIDate.parse(endsAt, option: "--ends-at"),
                active: !inactive
            )
            let offer = try await target.run(
                local: { try await $0.createOffer(appID: appID, input) },
                remote: { admin in try await admin.call { try await $0.createOffer(path: .init(appId: appID), body: .json(input)) }.created.body.json
                }
            )
            if json { return try Output.json(offer) }
            print("Created offer \(offer.id) '\(offer.referenceName)' on \(offer.productID).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an app's offers.")
        @OptionGroup var app: AppOption
        @Option var product: String?
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let offers = try await target.run(
                local: { try await $0.offers(appID: appID, productID: product) },
                remote: { admin in
                    try await admin.call { try await $0.listOffers(path: .init(appId: appID), query: .init(productId: product)) }.ok.body.json.offers
                }
            )
            if json { return try Output.json(Operations.ListOffers.Output.Ok.Body.JsonPayload(offers: offers)) }
            for o in offers {
                let length = o.totalPeriod?.description ?? "-"
                print("\(o.id)  \(o.isActive ? "active  " : "inactive")  \(o.productID)  \(o.paymentMode.rawValue)  \(length)  \(o.referenceName)")
            }
        }
    }

    struct Activate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Switch an offer on (a subscription takes at most 10 active offers).")
        @OptionGroup var app: AppOption
        @Option var offer: String
        @OptionGroup var target: AdminTarget

        func run() async throws { try await Offers.switchOffer(offer, active: true, app: app, target: target) }
    }

    struct Deactivate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Switch an offer off; its codes stop working.")
        @OptionGroup var app: AppOption
        @Option var offer: String
        @OptionGroup var target: AdminTarget

        func run() async throws { try await Offers.switchOffer(offer, active: false, app: app, target: target) }
    }

    /// Locally the offer's ID is enough; through `--server` the app is needed too.
    static func switchOffer(_ offer: String, active: Bool, app: AppOption, target: AdminTarget) async throws {
        let updated = try await target.run(
            local: { admin in
                var appID = app.optionalID
                if appID == nil { appID = try await admin.offer(id: offer).appID }
                return try await admin.setOfferActive(appID: appID ?? "", id: offer, active: active)
            },
            remote: { admin in
                let path = Operations.SwitchOffer.Input.Path(appId: try app.id, offerId: offer)
                return try await admin.call { try await $0.switchOffer(path: path, body: .json(.init(active: active))) }.ok.body.json
            }
        )
        print("Offer \(updated.id) is \(active ? "active" : "inactive").")
    }

    struct Usage: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "This quarter's quota use and each offer's redemptions.")
        @OptionGroup var app: AppOption
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let usage = try await target.run(
                local: { try await $0.offerCodeUsage(appID: appID) },
                remote: { admin in try await admin.call { try await $0.offerCodeUsage(path: .init(appId: appID)) }.ok.body.json }
            )
            if json { return try Output.json(usage) }
            print("\(usage.quarter): \(usage.used) of \(usage.quota) redemptions used")
            for offer in usage.offers { print("  \(offer.offerID)  \(offer.redemptions)  \(offer.referenceName)") }
        }
    }

    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every redemption as CSV: customer, code type, custom code, offer, date.")
        @OptionGroup var app: AppOption
        @Option var offer: String?
        @Option(help: "Write to this file instead of standard output.")
        var out: String?
        @OptionGroup var target: AdminTarget

        func run() async throws {
            let appID = try app.id
            let csv = try await target.run(
                local: { try await $0.offerRedemptionReport(appID: appID, offerID: offer) },
                remote: { admin in
                    let input = Operations.OfferRedemptionReport.Input(
                        path: .init(appId: appID), query: .init(offerId: offer, format: "csv"),
                        headers: .init(accept: [.init(contentType: .textCsvCharsetUtf8)]))
                    let body = try await admin.call { try await $0.offerRedemptionReport(input) }.ok.body.textCsvCharsetUtf8
                    return try await String(collecting: body, upTo: 256 * 1024 * 1024)
                }
            )
            guard let out else { return print(csv, terminator: "") }
            try Data(csv.utf8).write(to: URL(fileURLWithPath: out))
        }
    }
}

enum CLIDate {
    static func parse(_ value: String?, option: String) throws -> Date? {
        guard let value else { return nil }
        guard let date = ISODate.parse(value) else {
            throw ValidationError(field: option, reason: "must be an ISO-8601 date such as 2026-12-31T00:00:00Z")
        }
        return date
    }
}
