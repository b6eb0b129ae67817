import Foundation
import Mustache

/// The Mustache templates of hosted pages and e-mails, loaded once at start.
public struct Templates: Sendable {
    let library: MustacheLibrary

    static let required = [
        "redeem-link", "purchase-success", "sandbox-checkout", "checkout-pending", "email-receipt.html", "email-receipt.txt", "email-new-link.html",
        "email-new-link.txt", "message", "console-sign-in", "console-search", "console-customer", "console-new-link", "console-audit",
    ]

    public static func load() async throws -> Templates {
        guard let directory = Bundle.module.url(forResource: "templates", withExtension: nil, subdirectory: "Resources") else {
            throw ConfigurationError(setting: "templates", reason: "are missing from the RedeemServer bundle")
        }
        let library = try await MustacheLibrary(directory: directory.path)
        for name in required where library.getTemplate(named: name) == nil {
            throw ConfigurationError(setting: "templates", reason: "'\(name).mustache' is missing")
        }
        return Templates(library: library)
    }

    /// A page or an e-mail over its typed values. Every name was checked at load, so rendering cannot miss.
    func render(_ name: String, _ values: LayeredValues) -> String { library.render(values, withTemplate: name) ?? "" }

    func render(_ name: String, _ model: some PageModel) -> String { render(name, LayeredValues(layers: [model])) }
}
