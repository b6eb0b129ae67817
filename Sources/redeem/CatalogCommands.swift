import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer

struct Products: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create and list products.", subcommands: [Create.self, List.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a product and attach entitlements to it.")
        @Option var app: String
        @Option var id: String
        @Option(help: "subscription, consumable or non_consumable")
        var type: String
        @Option(help: "ISO-8601 period for subscriptions: P1W, P1M, P1Y…")
        var period: String?
        @Option var displayName: String?
        @Option(help: "An entitlement the product unlocks (created if new); repeat for several.")
        var entitlement: [String] = []
        @Option(help: "Checkout price, e.g. 4.99 (with --currency).")
        var price: String?
        @Option(help: "ISO-4217 currency of --price, e.g. USD.")
        var currency: String?
        @Option(help: "Subscriptions: the subscription group it ranks in (offers and upgrades are judged per group).")
        var subscriptionGroup: String?
        @Option(help: "Subscriptions: its level in the group, 1 the highest.")
        var groupLevel: Int?
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func run() async throws {
            var priceInput: PriceInput?
            if let price { priceInput = try PriceInput(amount: price, currency: currency ?? "USD") }
            let input = ProductInput(
                id: id, type: type, period: period, displayName: displayName, entitlements: entitlement, price: priceInput,
                subscriptionGroup: subscriptionGroup, groupLevel: groupLevel)
            let product = try await database.withAdmin { try await $0.createProduct(appID: app, input) }
            if json { return try Output.json(product) }
            print("Created product \(product.id) (\(product.type.rawValue)) unlocking \(product.entitlements.joined(separator: ", ")).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an app's products.")
        @Option var app: String
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func run() async throws {
            let products = try await database.withAdmin { try await $0.store.products(appID: app) }
            if json { return try Output.json(["products": products]) }
            for p in products { print("\(p.id)  \(p.type.rawValue)  \(p.period ?? "-")  \(p.entitlements.joined(separator: ","))") }
        }
    }
}

struct Entitlements: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create and list entitlements.", subcommands: [Create.self, List.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an entitlement.")
        @Option var app: String
        @Option var id: String
        @Option var displayName: String?
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func run() async throws {
            let input = EntitlementInput(id: id, displayName: displayName)
            let entitlement = try await database.withAdmin { try await $0.createEntitlement(appID: app, input) }
            if json { return try Output.json(entitlement) }
            print("Created entitlement \(entitlement.id).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an app's entitlements.")
        @Option var app: String
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func run() async throws {
            let entitlements = try await database.withAdmin { try await $0.store.entitlements(appID: app) }
            if json { return try Output.json(["entitlements": entitlements]) }
            for e in entitlements { print("\(e.id)  \(e.displayName ?? "")") }
        }
    }
}

struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list and revoke API keys.", subcommands: [Create.self, List.self, Revoke.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a key for an app, or with --admin an instance admin key.")
        @Option(help: "The app; omit with --admin.")
        var app: String?
        @Option(help: "public_sandbox, public_production or secret")
        var kind: String?
        @Flag(help: "An instance-wide admin key, which can also create apps.")
        var admin = false
        @Option(help: "What the key is for, e.g. 'iOS app' or 'billing server' (shown in lists).")
        var label: String?
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func validate() throws {
            if admin, app != nil || kind != nil { throw ValidationError("--admin takes neither --app nor --kind") }
            if !admin, app == nil || kind == nil { throw ValidationError("give --app and --kind, or --admin") }
        }

        func run() async throws {
            let created = try await database.withAdmin { try await $0.createKey(appID: admin ? nil : app, kind: kind ?? "admin", label: label) }
            if json { return try Output.json(created) }
            print("Created \(created.key.kind.rawValue) key \(created.key.id):\n  \(created.plaintext)\nIt is shown only now.")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys (never their plaintext).")
        @Option(help: "The app; omit to list every key.")
        var app: String?
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func run() async throws {
            let keys = try await database.withAdmin { try await $0.store.keys(appID: app) }
            if json { return try Output.json(["keys": keys]) }
            for k in keys {
                print("\(k.id)  \(k.kind.rawValue)  \(k.displayPrefix)…  \(k.revokedAt == nil ? "active" : "revoked")  \(k.label ?? "")")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key.")
        @Argument var id: String
        @Option var app: String?
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await database.withAdmin { try await $0.revokeKey(id: id, appID: app) }
            print("Revoked \(id).")
        }
    }
}
