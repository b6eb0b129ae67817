import Logging
import RedeemStore
import ServiceLifecycle

/// Feeds `CustomerVersions` from the store's announcements for the life of the server (PostgreSQL); on SQLite it has
/// nothing to do and waits for shutdown.
struct CustomerVersionFeed: Service {
    let store: any CustomerInfoStore
    let versions: CustomerVersions

    func run() async throws {
        let watch = Task { [store, versions] in _ = await store.watchCustomerVersions { versions.apply($0) } }
        try? await gracefulShutdown()
        // Shutdown does not wait for the listener: after an outage its connection's last call can wait on a server that
        // is gone (a clean-clone CI run's `postgres_outage.py` hung here on SIGTERM). Cancelled, it ends on its own.
        watch.cancel()
        versions.apply(.lost)
    }
}
