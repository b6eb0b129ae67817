import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RedeemCore
import RedeemServer

/// The admin API of a running Redeem, for `--server`: the same commands, sent as HTTP requests with an admin key
/// (or an app's secret key) instead of run on a local database.
struct RemoteAdmin: Sendable {
    let base: String
    let key: String

    init(server: String, key: String?) throws {
        guard let url = URL(string: server), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw ConfigurationError(
                setting: "--server / REDEEM_SERVER", reason: "'\(server)' must be an http(s) URL such as https://pay.example.com")
        }
        guard let key, !key.isEmpty else {
            throw ConfigurationError(
                setting: "REDEEM_ADMIN_KEY", reason: "is required with --server: an admin key (rdm_admin_…) or an app's secret key")
        }
        self.base = server.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        self.key = key
    }

    /// The server's answer, decoded; an error answer is thrown as `RemoteError`, naming the flag for a field.
    func send<Answer: Decodable>(
        _ method: HTTPMethod, _ path: String, body: (some Encodable)? = nil as String?, as: Answer.Type
    ) async throws -> Answer {
        let data = try await sendRaw(method, path, body: body)
        return try JSONCoding.decoder.decode(Answer.self, from: data)
    }

    /// The server's JSON answer as bytes, for `--json`, which prints it as the API gave it.
    func sendRaw(_ method: HTTPMethod, _ path: String, body: (some Encodable)? = nil as String?) async throws -> Data {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: Array(try JSONCoding.encoder.encode(body))))
        }
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        } catch {
            throw RemoteError(message: "cannot reach \(base): \(error)")
        }
        let bytes = try await response.body.collect(upTo: 64 * 1024 * 1024)
        let data = Data(bytes.readableBytesView)
        guard (200..<300).contains(response.status.code) else {
            let answer = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            let message = answer?["message"] as? String ?? "HTTP \(response.status.code)"
            let field = answer?["field"] as? String
            // The API's message starts with the field's name; the operator typed a flag.
            guard let field, message.hasPrefix(field + " ") else { throw RemoteError(message: message) }
            throw RemoteError(message: CLIFlags.name(ofField: field) + message.dropFirst(field.count))
        }
        return data
    }
}

/// What the server refused, in its own words.
struct RemoteError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
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
