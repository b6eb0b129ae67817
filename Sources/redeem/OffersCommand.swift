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
                remote: { try await $0.send(.POST, "/admin/v1/apps/\(segment(appID))/offers", body: input, as: Offer.self) }
            )
            if json { return try Output.json(offer) }
            print("Created offer \(offer.id) '\(offer.referenceName)' on \(offer.productID).")
        }
    }

    struct OfferList: Codable { let offers: [Offer] }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an app's offers.")
        @OptionGroup var app: AppOption
        @Option var product: String?
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let query = product.map { "?product_id=\(segment($0))" } ?? ""
            let offers = try await target.run(
                local: { try await $0.offers(appID: appID, productID: product) },
                remote: { try await $0.send(.GET, "/admin/v1/apps/\(segment(appID))/offers\(query)", as: OfferList.self).offers }
            )
            if json { return try Output.json(OfferList(offers: offers)) }
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

    struct ActiveSwitch: Encodable { let active: Bool }

    /// Locally the offer's ID is enough; through `--server` the app is needed too.
    static func switchOffer(_ offer: String, active: Bool, app: AppOption, target: AdminTarget) async throws {
        let updated = try await target.run(
            local: { admin in
                var appID = app.optionalID
                if appID == nil { appID = try await admin.offer(id: offer).appID }
                return try await admin.setOfferActive(appID: appID ?? "", id: offer, active: active)
            },
            remote: {
                try await $0.send(
                    .PATCH, "/admin/v1/apps/\(segment(try app.id))/offers/\(segment(offer))", body: ActiveSwitch(active: active), as: Offer.self)
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
                remote: { try await $0.send(.GET, "/admin/v1/apps/\(segment(appID))/offer_codes/usage", as: OfferCodeUsage.self) }
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
            let query = "?format=csv" + (offer.map { "&offer_id=\(segment($0))" } ?? "")
            let csv = try await target.run(
                local: { try await $0.offerRedemptionReport(appID: appID, offerID: offer) },
                remote: {
                    String(decoding: try await $0.sendRaw(.GET, "/admin/v1/apps/\(segment(appID))/offer_codes/redemptions\(query)"), as: UTF8.self)
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
