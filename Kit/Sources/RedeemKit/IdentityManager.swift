import Foundation

/// The current app user ID: given by the app, or an anonymous ID generated once and persisted.
final class IdentityManager: Sendable {
    static let anonymousPrefix = "$RCAnonymousID:"
    static let storageKey = "redeem.appUserID"

    private let storage: any KeyValueStorage
    private let current: Locked<String>

    /// Uses `appUserID` if given; otherwise the persisted ID; otherwise a new anonymous ID.
    init(appUserID: String?, storage: any KeyValueStorage) {
        self.storage = storage
        let id: String
        if let given = appUserID.flatMap(Self.validated) {
            id = given
        } else if let stored = storage.string(forKey: Self.storageKey).flatMap(Self.validated) {
            id = stored
        } else {
            id = Self.generateAnonymousID()
        }
        current = Locked(id)
        storage.set(id, forKey: Self.storageKey)
    }

    var appUserID: String { current.withLock { $0 } }

    var isAnonymous: Bool { Self.isAnonymous(appUserID) }

    /// Switches to `appUserID`. Returns `false` if the ID is blank.
    func logIn(_ appUserID: String) -> Bool {
        guard let id = Self.validated(appUserID) else { return false }
        switchTo(id)
        return true
    }

    /// Switches to a new anonymous ID and returns it.
    func logOut() -> String {
        let id = Self.generateAnonymousID()
        switchTo(id)
        return id
    }

    private func switchTo(_ id: String) {
        current.withLock { current in
            current = id
            storage.set(id, forKey: Self.storageKey)
        }
    }

    /// `$RCAnonymousID:` followed by 32 lowercase hex digits.
    static func generateAnonymousID() -> String {
        anonymousPrefix + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    static func isAnonymous(_ id: String) -> Bool {
        id.hasPrefix(anonymousPrefix)
    }

    static func validated(_ id: String) -> String? {
        let trimmed = id.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
