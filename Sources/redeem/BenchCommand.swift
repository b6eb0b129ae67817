import ArgumentParser
import Foundation
import RedeemBenchSupport
import RedeemCore
import RedeemStore

/// Tools for `benchmarks/redemption.py`.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Benchmark helpers.", shouldDisplay: false, subcommands: [Seed.self])

    struct Seed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Seed purchases and live redemption tokens; write the last --keep tokens to --out.")
        @Option var app: String
        @Option var product: String
        @Option var purchases: Int = 1000
        @Option var tokens: Int = 10_000
        @Option var keep: Int = 10_000
        @Option var out: String
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let store = try await database.openStore(logger: .cli, creating: true)
            let kept: [String]
            do {
                kept = try await BenchSeeder(store: store).seedRedemptionTokens(
                    appID: app, productID: product, purchaseCount: purchases, tokenCount: tokens, keep: keep, now: Date()
                ) { done in
                    if done % 200_000 == 0 || done == tokens { FileHandle.standardError.write(Data("seeded \(done) tokens\n".utf8)) }
                }
            } catch {
                await store.close()
                throw error
            }
            await store.close()
            try (kept.joined(separator: "\n") + "\n").write(toFile: out, atomically: true, encoding: .utf8)
        }
    }
}
