import Foundation

/// The redemption benchmark's yardsticks.
protocol BenchmarkStore: Sendable {
    func benchmarkBaseline(tokenHash: String) async throws -> Bool
    func benchmarkSameWrites(appID: String, tokenHash: String, appUserID: String, now: Date) async throws -> Bool
}
