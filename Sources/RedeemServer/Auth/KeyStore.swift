import RedeemCore

/// Looks API keys up by the hash of what a client presented.
public protocol KeyStore: Sendable {
    /// The live (unrevoked) key with this hash.
    func activeKey(hash: String) async throws -> APIKey?
}
