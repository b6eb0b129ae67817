import Logging
import RedeemStore
import ServiceLifecycle

/// Feeds `CustomerVersions` from the store's announcements for the life of the server (PostgreSQL); on SQLite it has
/// nothing to do and waits for shutdown.
struct CustomerVersionFeed: Service {
    let store: any CustomerInfoStore
    let versions: CustomerVersions

    func run() async throws {
        await cancelWhenGracefulShutdown {
            let watched = await store.watchCustomerVersions { versions.apply($0) }
            if !watched { try? await gracefulShutdown() }
        }
        versions.apply(.lost)
    }
}
