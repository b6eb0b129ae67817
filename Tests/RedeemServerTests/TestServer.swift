import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// A server on a fresh database, driven through Hummingbird's router tester, with an admin key ready.
struct TestServer: Sendable {
    let client: any TestClientProtocol
    let deps: ServerDependencies
    let adminKey: String

    struct Reply: Sendable {
        let status: Int
        let headers: HTTPFields
        let body: String

        /// The body as a JSON object; fails the test when it is not one.
        func object() throws -> [String: any Sendable] {
            let value = try JSONSerialization.jsonObject(with: Data(body.utf8))
            return try #require(value as? [String: any Sendable], "not a JSON object: \(body)")
        }

        func string(_ path: String) throws -> String? { try object().value(at: path) as? String }
        var code: Int? { (try? object())?["code"] as? Int }
    }

    /// `json` goes with `Content-Type: application/json` unless `headers` names another type; `raw` goes with no type.
    func send(
        _ method: HTTPRequest.Method, _ uri: String, key: String?, json: String? = nil, raw: String? = nil, headers: HTTPFields = [:]
    ) async throws -> Reply {
        var headers = headers
        if let key { headers[.authorization] = "Bearer \(key)" }
        if json != nil, headers[.contentType] == nil { headers[.contentType] = "application/json" }
        if let port = client.port { return try await Self.sendLive(port: port, method, uri, headers, (json ?? raw).map { ByteBuffer(string: $0) }) }
        return try await client.execute(uri: uri, method: method, headers: headers, body: (json ?? raw).map { ByteBuffer(string: $0) }) {
            response in
            Reply(status: Int(response.status.code), headers: response.headers, body: String(buffer: response.body))
        }
    }

    /// Live servers (the concurrency storms) through a client of their own: a connection per request, as many at once
    /// as asked, and a deadline long enough that a loaded machine slows a storm rather than failing it (the testing
    /// client's is 20 s).
    static let liveClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = HTTPClient.Configuration.ConnectionPool(
            idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 512)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    static func sendLive(
        port: Int, _ method: HTTPRequest.Method, _ uri: String, _ headers: HTTPFields, _ body: ByteBuffer?
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(uri)")
        request.method = .init(rawValue: method.rawValue)
        for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
        if let body { request.body = .bytes(body) }
        let response = try await liveClient.execute(request, deadline: NIODeadline.now() + TimeAmount.seconds(300))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        var fields = HTTPFields()
        for header in response.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        return Reply(status: Int(response.status.code), headers: fields, body: String(buffer: bytes))
    }

    /// A checkout's answer as a browser lands on it: the 303 to the success page (post, redirect, get) is followed.
    func landing(_ reply: Reply, headers: HTTPFields = [:]) async throws -> Reply {
        guard reply.status == 303, let location = reply.headers[.location], location.hasPrefix("/checkout/done/") else { return reply }
        return try await send(.get, location, key: nil, headers: headers)
    }

    /// Creates an app through the admin API and returns its id and keys.
    func createApp(_ json: String = #"{"name": "Test App"}"#) async throws -> CreatedAppKeys {
        let reply = try await send(.post, "/admin/v1/apps", key: adminKey, json: json)
        #expect(reply.status == 201, "\(reply.body)")
        let object = try reply.object()
        let keys = try #require(object["keys"] as? [String: String])
        return CreatedAppKeys(
            id: try #require(object["id"] as? String), scheme: try #require(object["scheme"] as? String),
            publicSandbox: try #require(keys["public_sandbox"]), publicProduction: try #require(keys["public_production"]),
            secret: try #require(keys["secret"])
        )
    }

    /// Records a purchase through the server API and returns its JSON (with its redemption links).
    func grant(_ app: CreatedAppKeys, _ body: String) async throws -> Reply {
        let reply = try await send(
            .post, "/v1/purchases", key: app.secret, json: body, headers: [HTTPField.Name("Idempotency-Key")!: UUID().uuidString])
        #expect(reply.status == 201, "\(reply.body)")
        return reply
    }

    /// An app with a monthly subscription and a lifetime product, both unlocking `pro`.
    func createAppWithCatalog() async throws -> CreatedAppKeys {
        let app = try await createApp()
        for product in [
            #"{"id": "monthly", "type": "subscription", "period": "P1M", "entitlements": ["pro"]}"#,
            #"{"id": "lifetime", "type": "non_consumable", "entitlements": ["pro", "extra"]}"#,
        ] {
            let reply = try await send(.post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: product)
            #expect(reply.status == 201, "\(reply.body)")
        }
        return app
    }
}

struct CreatedAppKeys: Sendable {
    let id: String
    let scheme: String
    let publicSandbox: String
    let publicProduction: String
    let secret: String
}

extension TestServer {
    /// `send` made `times` times at once, as a double click or a retry does; the answers in any order.
    static func atOnce(_ times: Int = 4, _ send: @escaping @Sendable () async throws -> Reply) async throws -> [Reply] {
        try await withThrowingTaskGroup(of: Reply.self) { group in
            for _ in 0..<times { group.addTask { try await send() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }
}

extension TestServer {
    static let start = ISODate.parse("2026-06-01T00:00:00Z")!

    /// Runs `body` against a server on a fresh `backend` database.
    static func with(
        _ backend: TestBackend, clock: ManualClock = ManualClock(start), setup: TestingSetup = .router,
        mail: MailSettings? = nil, rateLimits: RateLimits = .unlimited, stripeWebhookSecret: String? = nil, stripe: StripeSettings? = nil,
        trustedProxies: Set<String> = [], ownersNeedTwoFactor: Bool = false, benchmarkRoutes: Bool = false,
        _ body: @escaping @Sendable (TestServer) async throws -> Void
    ) async throws {
        try await TestDatabases.withStore(backend) { store in
            var configured = try await ServerDependencies(
                store: store, clock: clock, publicURL: URL(string: "https://pay.example.com")!, mail: mail, rateLimits: rateLimits,
                stripeWebhookSecret: stripeWebhookSecret, stripe: stripe
            )
            configured.trustedProxies = trustedProxies
            configured.ownersNeedTwoFactor = ownersNeedTwoFactor
            configured.benchmarkRoutes = benchmarkRoutes
            let deps = configured
            let adminKey = try await deps.admin.acting(as: "test").createKey(appID: nil, kind: "admin").plaintext
            let app = Application(router: try buildRouter(deps), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
            try await app.test(setup) { client in
                try await body(TestServer(client: client, deps: deps, adminKey: adminKey))
            }
        }
    }
}

extension RateLimits {
    /// Limits high enough that only the rate-limit tests meet them.
    static var unlimited: RateLimits {
        var limits = RateLimits()
        limits.redeemPerIP = 100_000
        limits.redeemPerUser = 100_000
        limits.newLinkPerIP = 100_000
        limits.newLinkPerEmail = 100_000
        limits.signInPerIP = 100_000
        limits.signInPerAccount = 100_000
        return limits
    }
}

extension Dictionary where Key == String, Value == any Sendable {
    /// A value at a dotted path such as `subscriber.entitlements.pro`.
    func value(at path: String) -> Any? {
        var current: Any? = self
        for part in path.split(separator: ".") {
            current = (current as? [String: Any])?[String(part)]
        }
        return current
    }
}
