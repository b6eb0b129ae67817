import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer
import RedeemStore

extension Customers {
    /// `redeem customers export`: the console's owner export, for a terminal or a script answering data-access requests.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Everything stored about a customer as JSON, for a data-access request (audited).",
            discussion:
                "The console's export: the customer, IDs, attributes, purchases, links, attempts, e-mails, webhook events and audit entries. Written to --output (readable by its owner only) or printed."
        )
        @OptionGroup var app: AppOption
        @Option(help: "An app user ID or alias of the customer.")
        var user: String
        @Option(help: "Write the file here instead of printing it.")
        var output: String?
        @OptionGroup var target: AdminTarget

        func validate() throws { _ = try AppUserID(validating: user) }

        func run() async throws {
            let appID = try app.id
            let appUserID = try AppUserID(validating: user)
            let file = try await target.run(
                store: { try await CustomerExportService(store: $0).export(appID: appID, appUserID: appUserID, actor: CLI.actor) },
                remote: { admin in
                    let export = try await admin.call { try await $0.exportCustomer(path: .init(appId: appID, appUserId: user)) }.ok.body.json
                    return try JSONCoding.encoder.encode(export)
                })
            guard let output else { return print(String(decoding: file, as: UTF8.self)) }
            // Personal data: the file is made empty and its owner's alone, then written.
            guard FileManager.default.createFile(atPath: output, contents: nil, attributes: [.posixPermissions: 0o600]),
                let handle = FileHandle(forWritingAtPath: output)
            else { throw ConfigurationError(setting: "--output", reason: "\(output) cannot be written") }
            defer { try? handle.close() }
            try handle.write(contentsOf: file)
            print("Wrote \(user)'s data to \(output).")
        }
    }
}
