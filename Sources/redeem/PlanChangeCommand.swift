import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer

extension Purchases {
    struct ChangePlan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "change-plan",
            abstract: """
                Switch a subscription to another plan of its group (audited): an upgrade now, a downgrade at the period's end; \
                its current plan drops a waiting switch. Sandbox here; Stripe through Stripe (with --server).
                """)
        @OptionGroup var options: PurchaseOptions
        @Option(help: "The plan to switch to: another subscription of the product's group, priced in the purchase's currency.")
        var to: String

        func run() async throws {
            let appID = try options.app.id
            let switched = try await options.target.runSupport(
                publicURL: try PublicURL.resolve(nil),
                local: { try await $0.changePlan(appID: appID, purchaseID: options.purchase, to: to, actor: CLI.actor).purchase },
                remote: { admin in
                    let path = Operations.ChangePurchasePlan.Input.Path(appId: appID, purchaseId: options.purchase)
                    let body = Operations.ChangePurchasePlan.Input.Body.json(.init(productId: to))
                    let answer = try await admin.call { try await $0.changePurchasePlan(path: path, body: body) }
                    if case .accepted(let asked) = answer { return try asked.body.json }
                    return try answer.ok.body.json
                })
            if options.json { return try Output.json(switched) }
            let periodEnd = switched.expiresDate.map(ISODate.format) ?? "its period end"
            if switched.scheduledPlan?.productID == to {
                print("\(switched.id) keeps \(switched.productID) until \(periodEnd), then renews as \(to) (a switch at the period's end).")
            } else if switched.productID == to {
                print("Switched \(switched.id) to \(to) until \(periodEnd); no switch waits for its renewal.")
            } else {
                print("Stripe was asked to switch \(switched.id) to \(to); it shows when Stripe's webhook confirms.")
            }
        }
    }
}
