import Foundation

/// Where the SDK keeps small values such as the current app user ID.
public protocol KeyValueStorage: Sendable {
    func string(forKey key: String) -> String?
    func set(_ value: String?, forKey key: String)
}

/// Values kept in memory only; for tests and previews.
public final class InMemoryStorage: KeyValueStorage, @unchecked Sendable {
    private let values = Locked<[String: String]>([:])

    public init(_ values: [String: String] = [:]) {
        self.values.withLock { $0 = values }
    }

    public func string(forKey key: String) -> String? {
        values.withLock { $0[key] }
    }

    public func set(_ value: String?, forKey key: String) {
        values.withLock { $0[key] = value }
    }
}

/// Values in `UserDefaults` (thread-safe by Apple's documentation).
public struct UserDefaultsStorage: KeyValueStorage, @unchecked Sendable {
    private let defaults: UserDefaults

    public init(_ defaults: UserDefaults = .standard) {
        self.defaults = defaults
    }

    public func string(forKey key: String) -> String? {
        defaults.string(forKey: key)
    }

    public func set(_ value: String?, forKey key: String) {
        defaults.set(value, forKey: key)
    }
}

/// Values in one JSON file inside `directory`, written atomically.
public final class DirectoryStorage: KeyValueStorage, @unchecked Sendable {
    private let fileURL: URL
    private let values: Locked<[String: String]?> = Locked(nil)

    public init(directory: URL, fileName: String = "redeem-settings.json") {
        fileURL = directory.appendingPathComponent(fileName)
    }

    public func string(forKey key: String) -> String? {
        values.withLock { values in
            loadIfNeeded(&values)
            return values?[key]
        }
    }

    public func set(_ value: String?, forKey key: String) {
        values.withLock { values in
            loadIfNeeded(&values)
            var updated = values ?? [:]
            updated[key] = value
            values = updated
            try? FileManager.default.createDirectory(
                at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true
            )
            if let data = try? JSONEncoder().encode(updated) {
                try? data.write(to: fileURL, options: .atomic)
            }
        }
    }

    private func loadIfNeeded(_ values: inout [String: String]?) {
        guard values == nil else { return }
        let data = try? Data(contentsOf: fileURL)
        values = data.flatMap { try? JSONDecoder().decode([String: String].self, from: $0) } ?? [:]
    }
}
