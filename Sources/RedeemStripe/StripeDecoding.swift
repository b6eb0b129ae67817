import Foundation

/// Key for `{"id": …}` of an expanded object.
struct StripeIDKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    static let id = StripeIDKey(stringValue: "id")
}

/// `{"data": [...]}` of a Stripe list object.
struct StripeList<Element: Decodable>: Decodable {
    let data: [Element]
}

extension KeyedDecodingContainer {
    /// Unix seconds.
    func decodeUnixTime(forKey key: Key) throws -> Date {
        Date(timeIntervalSince1970: TimeInterval(try decode(Int64.self, forKey: key)))
    }

    /// Unix seconds; nil when absent or null.
    func decodeUnixTimeIfPresent(forKey key: Key) throws -> Date? {
        try decodeIfPresent(Int64.self, forKey: key).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// A required expandable reference (see `decodeIDIfPresent`).
    func decodeID(forKey key: Key) throws -> String {
        guard let id = try decodeIDIfPresent(forKey: key) else {
            throw DecodingError.valueNotFound(
                String.self, .init(codingPath: codingPath + [key], debugDescription: "expected an ID"))
        }
        return id
    }

    /// An expandable reference: an ID string or an expanded object's `id`; nil when absent or null.
    func decodeIDIfPresent(forKey key: Key) throws -> String? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let id = try? decode(String.self, forKey: key) { return id }
        return try nestedContainer(keyedBy: StripeIDKey.self, forKey: key).decode(String.self, forKey: .id)
    }

    /// Stripe metadata: string values; empty when absent or null.
    func decodeMetadata(forKey key: Key) throws -> [String: String] {
        try decodeIfPresent([String: String].self, forKey: key) ?? [:]
    }
}
