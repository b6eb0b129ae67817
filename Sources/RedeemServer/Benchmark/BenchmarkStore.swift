/// The redemption benchmark's yardstick.
protocol BenchmarkStore: Sendable {
    func benchmarkBaseline(tokenHash: String) async throws -> Bool
}
