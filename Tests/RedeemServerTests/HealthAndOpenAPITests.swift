import Foundation
import Hummingbird
import RedeemServer
import RedeemTestSupport
import Testing

@Suite struct HealthAndOpenAPITests {
    @Test(arguments: TestDatabases.available)
    func healthReportsTheDatabase(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let reply = try await server.send(.get, "/health", key: nil)
            #expect(reply.status == 200)
            #expect(try reply.string("status") == "ok")
            #expect(try reply.string("database") == backend.rawValue)
            #expect(try reply.object()["database_ok"] as? Bool == true)
        }
    }

    @Test(arguments: TestDatabases.available) func documentDescribesExactlyTheRegisteredRoutes(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let reply = try await server.send(.get, "/openapi.json", key: nil)
            #expect(reply.status == 200)
            #expect(reply.headers[.contentType] == "application/json")
            let document = try reply.object()
            #expect(document["openapi"] as? String == "3.1.0")
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            let methods = Set(["get", "put", "post", "delete", "patch", "head", "options"])
            let documented = Set(
                paths.flatMap { path, operations in
                    operations.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" }
                })
            var everything = server.deps
            everything.benchmarkRoutes = true  // the document also describes the benchmark's opt-in route
            // The operator console's pages are a signed-in browser UI (docs/console.md), not part of the HTTP contract.
            let registered = Set(try buildRouter(everything).routes.map { "\($0.method.rawValue) \(Self.normalize($0.path.description))" })
                .filter { !$0.contains(" /console") }
            #expect(registered.count > 10)
            #expect(registered.subtracting(documented).sorted() == [], "routes missing from openapi.json")
            #expect(documented.subtracting(registered).sorted() == [], "openapi.json names routes that do not exist")
        }
    }

    /// `/v1/subscribers/:app_user_id` or `{app_user_id}` → `/v1/subscribers/{app_user_id}`.
    static func normalize(_ path: String) -> String {
        "/"
            + path.split(separator: "/").map { part in
                part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
            }.joined(separator: "/")
    }
}
