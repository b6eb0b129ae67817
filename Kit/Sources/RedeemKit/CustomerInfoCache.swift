import Foundation

/// Customer info cached on disk, one file per app user ID, with the time it was fetched.
struct CustomerInfoCache: Sendable {
    struct Entry: Codable, Hashable, Sendable {
        var info: CustomerInfo
        /// When the server last confirmed this info; drives the refresh age.
        var fetchedAt: Date

        enum CodingKeys: String, CodingKey {
            case info = "customer_info"
            case fetchedAt = "fetched_at"
        }
    }

    let directory: URL

    func load(appUserID: String) -> Entry? {
        guard let data = try? Data(contentsOf: fileURL(for: appUserID)) else { return nil }
        return try? JSONCoding.decoder().decode(Entry.self, from: data)
    }

    func save(_ entry: Entry, appUserID: String) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let data = try JSONCoding.encoder().encode(entry)
            try data.write(to: fileURL(for: appUserID), options: .atomic)
        } catch {
            // The cache is an optimisation; the in-memory copy stays authoritative for this run.
        }
    }

    /// A file name safe for any ID: its UTF-8 bytes in hex.
    func fileURL(for appUserID: String) -> URL {
        let hex = appUserID.utf8.map { String(format: "%02x", $0) }.joined()
        return directory.appendingPathComponent("customer-info-\(hex).json")
    }
}
