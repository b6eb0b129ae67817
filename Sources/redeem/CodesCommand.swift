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
        @OptionGroup var app: AppOption
        @Option var offer: String
        @Option(help: "How many codes, up to 1,000,000.")
        var count: Int
        @Option(help: "Characters per code: 16, 17 or 18.")
        var length = 16
        @Option(help: "The CSV file to write; it must not exist yet.")
        var out: String
        @Option(help: "ISO-8601 expiry, at most 6 months away (default: 180 days).")
        var expires: String?
        @Option(
            help:
                "Public base URL for each code's redemption URL (env \(Setting.publicURL.environmentName)); without it the file has codes only. With --server, the server's."
        )
        var publicURL: String?
        @Flag(help: "No progress on standard error.")
        var quiet = false
        @OptionGroup var target: AdminTarget

        func run() async throws {
            let destination = URL(fileURLWithPath: out)
            guard !FileManager.default.fileExists(atPath: destination.path) else {
                throw ValidationError(field: "--out", reason: "'\(out)' exists; codes are written once, to a new file")
            }
            let base = try PublicURL.given(publicURL)
            let expiresAt = try CLIDate.parse(expires, option: "--expires") ?? Date().addingTimeInterval(180 * 86_400)
            let partial = destination.appendingPathExtension("partial")
            let progress = Progress(total: count, quiet: quiet)
            let started = Date()
            let batchID: String
            do {
                if let remote = try target.remote {
                    let input = Operations.GenerateCodeBatch.Input(
                        path: .init(appId: try app.id, offerId: offer), query: .init(format: "csv"),
                        headers: .init(accept: [.init(contentType: .textCsvCharsetUtf8)]),
                        body: .json(.init(count: count, expiresAt: expiresAt, length: length)))
                    let created = try await remote.call { try await $0.generateCodeBatch(input) }.created
                    // The server streams the file; so does this side, a chunk at a time.
                    guard FileManager.default.createFile(atPath: partial.path, contents: nil), let file = FileHandle(forWritingAtPath: partial.path)
                    else { throw ConfigurationError(setting: "--out", reason: "\(out) cannot be written") }
                    defer { try? file.close() }
                    for try await chunk in try created.body.textCsvCharsetUtf8 { try file.write(contentsOf: chunk) }
                    batchID = created.headers.xRedeemBatchID ?? ""
                } else {
                    // On SQLite the batch's commit syncs the WAL, and the process exits without copying it into the
                    // database file (the next process to open it does): see `FastSQLiteBackend.open`'s `leavesWAL`.
                    batchID = try await target.database.withAdmin(leavesWAL: true) { admin in
                        let appID = try await admin.offer(id: offer).appID
                        // Written a chunk at a time; the file is complete on disk before any code is stored, and gets
                        // its name once they are.
                        return try await admin.generateCodes(
                            appID: appID, offerID: offer, count: count, length: length, expiresAt: expiresAt,
                            into: CodeCSVFile(url: partial, publicURL: base), progress: progress.report)
                    }.id
                }
                try FileManager.default.moveItem(at: partial, to: destination)
            } catch {
                try? FileManager.default.removeItem(at: partial)
                throw error
            }
            progress.finish()
            let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
            let batch = batchID.isEmpty ? "" : "batch \(batchID): "
            print("Generated \(batch)\(count) codes for \(offer) in \(seconds) s, written to \(out).")
        }
    }

    struct Batches: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List code batches with how many codes were redeemed.")
        @OptionGroup var app: AppOption
        @Option var offer: String?
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let batches = try await target.run(
                local: { try await $0.codeBatches(appID: appID, offerID: offer) },
                remote: { admin in
                    try await admin.call { try await $0.listCodeBatches(path: .init(appId: appID), query: .init(offerId: offer)) }.ok.body.json
                        .batches
                }
            )
            if json { return try Output.json(Operations.ListCodeBatches.Output.Ok.Body.JsonPayload(batches: batches)) }
            for b in batches {
                print(
                    "\(b.id)  \(b.offerID)  \(b.isActive ? "active  " : "inactive")  \(b.redeemed ?? 0)/\(b.count) redeemed  expires \(ISODate.format(b.expiresAt))"
                )
            }
        }
    }

    struct DeactivateBatch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "deactivate-batch", abstract: "Switch a batch's codes off.")
        @OptionGroup var app: AppOption
        @Option(help: "The batch's ID (batch_…).")
        var batch: String
        @OptionGroup var target: AdminTarget

        func run() async throws {
            let appID = try app.id
            let updated = try await target.run(
                local: { try await $0.setCodeBatchActive(appID: appID, id: batch, active: false) },
                remote: { admin in
                    try await admin.call {
                        try await $0.switchCodeBatch(path: .init(appId: appID, batchId: batch), body: .json(.init(active: false)))
                    }
                    .ok.body.json
                }
            )
            print("Batch \(updated.id) is inactive.")
        }
    }

    struct CreateCustom: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create-custom", abstract: "Create a custom code such as SUMMER25.")
        @OptionGroup var app: AppOption
        @Option var offer: String
        @Option var code: String
        @Option(help: "How many times it can be redeemed in all.")
        var maxRedemptions: Int
        @Option(help: "ISO-8601 expiry.")
        var expires: String?
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let input = CustomCodeInput(
                offerID: offer, code: code, maxRedemptions: maxRedemptions, expiresAt: try CLIDate.parse(expires, option: "--expires"))
            let created = try await target.run(
                local: { admin in
                    var appID = app.optionalID
                    if appID == nil { appID = try await admin.offer(id: offer).appID }
                    return try await admin.createCustomCode(appID: appID ?? "", input)
                },
                remote: { admin in
                    let appID = try app.id
                    return try await admin.call { try await $0.createCustomCode(path: .init(appId: appID), body: .json(input)) }.created.body.json
                }
            )
            if json { return try Output.json(created) }
            print("Created custom code \(created.code) (\(created.id)), up to \(created.maxRedemptions) redemptions.")
        }
    }

    struct ListCustom: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list-custom", abstract: "List custom codes with their use.")
        @OptionGroup var app: AppOption
        @Option var offer: String?
        @OptionGroup var target: AdminTarget
        @Flag var json = false

        func run() async throws {
            let appID = try app.id
            let codes = try await target.run(
                local: { try await $0.customCodes(appID: appID, offerID: offer) },
                remote: { admin in
                    try await admin.call { try await $0.listCustomCodes(path: .init(appId: appID), query: .init(offerId: offer)) }.ok.body.json
                        .customCodes
                }
            )
            if json { return try Output.json(Operations.ListCustomCodes.Output.Ok.Body.JsonPayload(customCodes: codes)) }
            for c in codes {
                print("\(c.id)  \(c.code)  \(c.isActive ? "active  " : "inactive")  \(c.redemptionCount)/\(c.maxRedemptions)  \(c.offerID)")
            }
        }
    }

    struct DeactivateCustom: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "deactivate-custom", abstract: "Switch a custom code off.")
        @OptionGroup var app: AppOption
        @Option(name: [.customLong("custom-code"), .customLong("id")], help: "The custom code's ID (cc_…).")
        var codeID: String
        @OptionGroup var target: AdminTarget

        func run() async throws {
            let appID = try app.id
            let updated = try await target.run(
                local: { try await $0.setCustomCodeActive(appID: appID, id: codeID, active: false) },
                remote: { admin in
                    try await admin.call {
                        try await $0.switchCustomCode(path: .init(appId: appID, codeId: codeID), body: .json(.init(active: false)))
                    }.ok.body.json
                }
            )
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
        guard !quiet else { return }
        let percent = total == 0 ? 100 : done * 100 / total
        FileHandle.standardError.write(Data("\r\(phase) \(done)/\(total) (\(percent)%)\u{1B}[K".utf8))
    }

    func finish() {
        guard !quiet else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
