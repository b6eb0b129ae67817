import Foundation
import RedeemCore

/// Looks API keys up by the hash of what a client presented.
public protocol KeyStore: Sendable {
    /// The live (unrevoked) key with this hash.
    func activeKey(hash: String) async throws -> APIKey?
    /// Records when keys were last used; never moves a time back.
    func recordKeyUses(_ uses: [String: Date]) async throws
}
