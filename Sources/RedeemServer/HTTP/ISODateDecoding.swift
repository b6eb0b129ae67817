import Foundation
import RedeemCore

extension KeyedDecodingContainer {
    /// An ISO-8601 date read as text, so a bad one is an error naming its field; a decoder's date strategy sees no
    /// coding path (the generated handlers' decoder reads dates through `RedeemDateTranscoder`).
    func decodeISODateIfPresent(forKey key: Key) throws -> Date? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let date = ISODate.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "expected an ISO-8601 date")
        }
        return date
    }
}
