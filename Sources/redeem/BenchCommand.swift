import ArgumentParser
import Foundation
import RedeemServer

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
            let kept = try await database.withAdmin { admin in
                try await admin.seedRedemptionTokens(
                    appID: app, productID: product, purchaseCount: purchases, tokenCount: tokens, keep: keep
                ) { done in
                    if done % 200_000 == 0 || done == tokens { FileHandle.standardError.write(Data("seeded \(done) tokens\n".utf8)) }
                }
            }
            try (kept.joined(separator: "\n") + "\n").write(toFile: out, atomically: true, encoding: .utf8)
        }
    }
}
