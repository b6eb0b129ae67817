import Foundation
import HTTPTypes
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import RedeemServer

/// The admin API of a running Redeem, for `--server`: the same commands, sent with an admin key (or an app's secret
/// key) through the client generated from `openapi.yaml` instead of run on a local database.
struct RemoteAdmin: Sendable {
    let base: String
    let client: Client
    /// Which key: an admin key, or an app's secret key.
    let key: String

    init(server: String, key: String?) throws {
        guard let url = URL(string: server), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw ConfigurationError(
                setting: Setting.server.name, reason: "'\(server)' must be an http(s) URL such as https://pay.example.com")
        }
        guard let key, !key.isEmpty else {
            throw ConfigurationError(
                setting: Setting.adminKey.name, reason: "is required with --server: an admin key (rdm_admin_…) or an app's secret key")
        }
        self.key = key
        base = server.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        client = Client(
            serverURL: URL(string: base) ?? url, configuration: .redeem,
            transport: AsyncHTTPClientTransport(configuration: .init(client: .shared, timeout: .seconds(60))),
            middlewares: [BearerKey(key: key), Refusals()])
    }

    /// One call to the admin API. What the server refused is thrown in its own words, naming the flag for a field.
    func call<Answer>(_ operation: (Client) async throws -> Answer) async throws -> Answer {
        do {
            return try await operation(client)
        } catch let error as ClientError {
            if let refusal = error.underlyingError as? RemoteError { throw refusal }
            guard error.response != nil else { throw RemoteError(message: "cannot reach \(base): \(error.underlyingError)") }
            throw RemoteError(message: "\(base) answered \(error.operationID) in a form this CLI does not read: \(error.underlyingError)")
        }
    }
}

/// Sends the key on every request.
private struct BearerKey: ClientMiddleware {
    let key: String

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(key)"
        return try await next(request, body, baseURL)
    }
}

/// An error answer (`{"code", "message", "field"}`) becomes a `RemoteError` before the client reads it.
private struct Refusals: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, answer) = try await next(request, body, baseURL)
        guard response.status.kind != .successful else { return (response, answer) }
        var data = Data()
        if let answer { data = try await Data(collecting: answer, upTo: 1 << 20) }
        throw RemoteError(status: response.status.code, answer: data)
    }
}

/// What the server refused, in its own words.
struct RemoteError: Error, CustomStringConvertible {
    let message: String
    /// The HTTP status of a refusal; nil when the server was not reached or not understood.
    var status: Int?
    var description: String { message }

    init(message: String, status: Int? = nil) {
        self.message = message
        self.status = status
    }

    /// The API's message starts with the field's name; the operator typed a flag.
    init(status: Int, answer: Data) {
        struct Refusal: Decodable {
            let message: String
            let field: String?
        }
        guard let refusal = try? JSONDecoder().decode(Refusal.self, from: answer) else {
            self.init(message: "HTTP \(status)", status: status)
            return
        }
        guard let field = refusal.field, refusal.message.hasPrefix(field + " ") else {
            self.init(message: refusal.message, status: status)
            return
        }
        self.init(message: CLIFlags.name(ofField: field) + refusal.message.dropFirst(field.count), status: status)
    }
}

/// The CLI's flag for an API field, so errors name what the operator typed (`icon_url` is `--icon-url`).
enum CLIFlags {
    static let renamed: [String: String] = [
        "product_id": "--product", "offer_id": "--offer", "app_id": "--app", "price.amount": "--price", "price.currency": "--currency",
        "entitlements": "--entitlement", "android_cert_fingerprints": "--android-cert-fingerprint", "max_redemptions": "--max-redemptions",
        "expires_at": "--expires", "store_identifiers.app_store": "--app-store-id", "store_identifiers.play_store": "--play-store-id",
        "store_identifiers.play_base_plan": "--play-base-plan", "packages.identifier": "--package", "packages.product_id": "--package",
        "identifier": "--id",
    ]

    static func name(ofField field: String) -> String {
        if field.hasPrefix("--") { return field }
        return renamed[field] ?? "--" + field.replacingOccurrences(of: "_", with: "-").replacingOccurrences(of: ".", with: "-")
    }
}

/// The generated schemas, shorter.
typealias Schemas = Components.Schemas
