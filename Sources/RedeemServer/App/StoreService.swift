import RedeemStore
import ServiceLifecycle

/// Closes the store when the application shuts down.
struct StoreService: Service {
    let store: SQLStore

    func run() async throws {
        try? await gracefulShutdown()
        await store.close()
    }
}
