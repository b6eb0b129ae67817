import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer

struct Codes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "One-time code batches and custom codes.",
        subcommands: [Generate.self, Batches.self, DeactivateBatch.self, CreateCustom.self, ListCustom.self, DeactivateCustom.self]
    )

    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate a batch of one-time codes and write them, once, to a CSV file.",
            discussion: "Only the codes' hashes are stored: the file is the only copy. If it is lost, deactivate the batch and generate a new one."
        )
        @Option var offer: String
        @Option(help: "How many codes, up to 1,000,000.")
        var count: Int
        @Option(help: "Characters per code: 16, 17 or 18.")
        var length = 16
        @Option(help: "The CSV file to write; it must not exist yet.")
        var out: String
        @Option(help: "ISO-8601 expiry, at most 6 months away (default: 180 days).")
        var expires: String?
        @Option(help: "Public base URL for each code's redemption URL (env REDEEM_PUBLIC_URL); without it the file has codes only.")
        var publicURL: String?
        @Flag(help: "No progress on standard error.")
        var quiet = false
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let destination = URL(fileURLWithPath: out)
            guard !FileManager.default.fileExists(atPath: destination.path) else {
                throw ValidationError(field: "--out", reason: "'\(out)' exists; codes are written once, to a new file")
            }
            let base = try (publicURL ?? Environment.value("REDEEM_PUBLIC_URL")).map { raw -> URL in
                guard let url = URL(string: raw), url.scheme == "https" || url.scheme == "http" else {
                    throw ConfigurationError(setting: "--public-url / REDEEM_PUBLIC_URL", reason: "'\(raw)' is not an http(s) URL")
                }
                return url
            }
            let expiresAt = try CLIDate.parse(expires, option: "--expires") ?? Date().addingTimeInterval(180 * 86_400)
            let partial = destination.appendingPathExtension("partial")
            let progress = Progress(total: count, quiet: quiet)
            let started = Date()
            let generated: GeneratedCodeBatch
            do {
                generated = try await database.withAdmin { admin in
                    let appID = try await admin.store.offer(id: offer).appID
                    return try await admin.generateCodes(
                        appID: appID, offerID: offer, count: count, length: length, expiresAt: expiresAt, progress: progress.report
                    ) { batch in
                        // The file is complete on disk before any code is stored; it gets its name once they are.
                        try Data(batch.csv(publicURL: base).utf8).write(to: partial)
                        progress.report("written", count)
                    }
                }
                try FileManager.default.moveItem(at: partial, to: destination)
            } catch {
                try? FileManager.default.removeItem(at: partial)
                throw error
            }
            progress.finish()
            let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
            print("Generated batch \(generated.batch.id): \(generated.codes.count) codes for \(offer) in \(seconds) s, written to \(out).")
        }
    }

    struct Batches: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List code batches with how many codes were redeemed.")
        @Option var app: String
        @Option var offer: String?
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func run() async throws {
            let batches = try await database.withAdmin { try await $0.store.codeBatches(appID: app, offerID: offer) }
            if json { return try Output.json(["batches": batches]) }
            for b in batches {
                print(
                    "\(b.id)  \(b.offerID)  \(b.isActive ? "active  " : "inactive")  \(b.redeemed ?? 0)/\(b.count) redeemed  expires \(ISODate.format(b.expiresAt))"
                )
            }
        }
    }

    struct DeactivateBatch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "deactivate-batch", abstract: "Switch a batch's codes off.")
        @Option var app: String
        @Option var batch: String
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let updated = try await database.withAdmin { try await $0.setCodeBatchActive(appID: app, id: batch, active: false) }
            print("Batch \(updated.id) is inactive.")
        }
    }

    struct CreateCustom: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create-custom", abstract: "Create a custom code such as SUMMER25.")
        @Option var offer: String
        @Option var code: String
        @Option(help: "How many times it can be redeemed in all.")
        var maxRedemptions: Int
        @Option(help: "ISO-8601 expiry.")
        var expires: String?
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func run() async throws {
            let created = try await database.withAdmin { admin in
                let appID = try await admin.store.offer(id: offer).appID
                let input = CustomCodeInput(
                    offerID: offer, code: code, maxRedemptions: maxRedemptions, expiresAt: try CLIDate.parse(expires, option: "--expires"))
                return try await admin.createCustomCode(appID: appID, input)
            }
            if json { return try Output.json(created) }
            print("Created custom code \(created.code) (\(created.id)), up to \(created.maxRedemptions) redemptions.")
        }
    }

    struct ListCustom: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list-custom", abstract: "List custom codes with their use.")
        @Option var app: String
        @Option var offer: String?
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func run() async throws {
            let codes = try await database.withAdmin { try await $0.store.customCodes(appID: app, offerID: offer) }
            if json { return try Output.json(["custom_codes": codes]) }
            for c in codes {
                print("\(c.id)  \(c.code)  \(c.isActive ? "active  " : "inactive")  \(c.redemptionCount)/\(c.maxRedemptions)  \(c.offerID)")
            }
        }
    }

    struct DeactivateCustom: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "deactivate-custom", abstract: "Switch a custom code off.")
        @Option var app: String
        @Option(name: .customLong("id"), help: "The custom code's ID (cc_…).")
        var codeID: String
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let updated = try await database.withAdmin { try await $0.setCustomCodeActive(appID: app, id: codeID, active: false) }
            print("Custom code \(updated.code) is inactive.")
        }
    }
}

/// Progress on standard error, one line rewritten in place.
final class Progress: Sendable {
    let total: Int
    let quiet: Bool

    init(total: Int, quiet: Bool) {
        self.total = total
        self.quiet = quiet
    }

    @Sendable func report(_ phase: String, _ done: Int) {
        // Stores report every 1,000 codes; print about every 5%.
        let step = max(total / 20, 1000)
        guard !quiet, phase != "stored" || done == total || done % step < 1000 else { return }
        let percent = total == 0 ? 100 : done * 100 / total
        FileHandle.standardError.write(Data("\r\(phase) \(done)/\(total) (\(percent)%)\u{1B}[K".utf8))
    }

    func finish() {
        guard !quiet else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
