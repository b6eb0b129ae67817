import Foundation
import RedeemKit
import RedeemTestSupport
import Testing

/// RedeemKit's retries carry a redemption across a server that is down when the app opens the link.
// A hang guard, not a speed check: alone these take seconds, in the full suite on two cores over a minute.
@Suite(.timeLimit(.minutes(3)))
struct ServerDownRetryTests {
    @Test(arguments: TestDatabases.available) func aRedemptionSucceedsOnceTheServerComesUp(_ backend: TestBackend) async throws {
        try await TestShop.with(backend) { shop in
            // Buy on a first server, which stops when this returns.
            let link = try await shop.serveLive { baseURL in
                try await SandboxBuyer(baseURL: baseURL, appID: shop.appID)
                    .buy("lifetime", email: "late@example.com", scheme: shop.scheme)
            }

            // The app talks to a port where nothing listens yet; the default retry schedule
            // (0.5 s, 1 s, 2 s, … plus jitter) runs ten times faster.
            let port = try SMTPTestServer.freePort()
            let clock = QuickRetryClock(speedup: 10)
            let carol = TestDevice(baseURL: URL(string: "http://127.0.0.1:\(port)")!, apiKey: shop.publicKey, appUserID: "carol", clock: clock)
            let pending = Task { try await carol.open(link) }

            // Start the server on that port once two attempts have failed (two backoffs asked for): the event, not a
            // wall-clock delay, decides when. The suite's time limit is the hang guard.
            while clock.requestedWaits.count < 2 {
                try await Task.sleep(for: .milliseconds(10))
            }
            let result = try await shop.serve(port: port) { try await pending.value }

            guard case .success(let info, _) = result else {
                Issue.record("expected success, got \(result)")
                return
            }
            #expect(info.activeEntitlementIDs == ["pro"])
            let waits = clock.requestedWaits
            #expect(waits.count >= 2, "retries: \(waits)")
            #expect((0.5..<1.0).contains(waits[0]), "first backoff: \(waits[0])")
            // Each wait doubles (with jitter): the schedule, not the wall clock, is what this test checks; a timed
            // bound failed on a loaded machine.
            for (earlier, later) in zip(waits, waits.dropFirst()) { #expect(later > earlier, "backoff: \(waits)") }
        }
    }
}
