import Foundation
import Hummingbird
import HummingbirdTesting
import RedeemServer
import RedeemTestSupport
import ServiceLifecycle
import Testing

extension TestShop {
    /// Serves on a free port with HummingbirdTesting's live setup until `body` returns; `body` gets
    /// the base URL. (The live setup always binds `localhost` port 0, whatever the configuration says.)
    func serveLive<T: Sendable>(_ body: @Sendable (URL) async throws -> T) async throws -> T {
        let app = Application(
            router: try buildRouter(deps), configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            logger: TestDatabases.logger)
        return try await app.test(.live) { client in
            let port = try #require(client.port, "the live test setup did not report its port")
            return try await body(URL(string: "http://localhost:\(port)")!)
        }
    }

    /// Serves on 127.0.0.1:`port` until `body` returns, then shuts down gracefully.
    /// `body` starts while the server is still binding.
    func serve<T: Sendable>(port: Int, _ body: () async throws -> T) async throws -> T {
        let app = Application(
            router: try buildRouter(deps), configuration: .init(address: .hostname("127.0.0.1", port: port)),
            logger: TestDatabases.logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: TestDatabases.logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            do {
                let value = try await body()
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return value
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
        }
    }
}
