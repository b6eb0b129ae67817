import Foundation
import SQLKernel

/// Where a `postgres://user:password@host:port/database` URL points, read once for the pool and the listener alike.
struct PostgresAddress {
    let host: String
    let port: Int
    let username: String
    let password: String?
    let database: String?

    init(_ url: URL) throws(StoreError) {
        guard let host = url.host, !host.isEmpty else { throw .badURL("missing host") }
        self.host = host
        port = url.port ?? 5432
        username = url.user ?? "postgres"
        password = url.password?.removingPercentEncoding
        let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        database = path.isEmpty ? nil : path
    }
}
