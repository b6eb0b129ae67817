import Foundation
import RedeemCore

/// The body of `POST /v1/subscribers/{id}/attributes`: `{"attributes": {key: {"value": string|null, "updated_at_ms": int}}}`,
/// read strictly so a body of another shape is RevenueCat's 7264, never a 5xx.
public struct AttributesRequest: Codable, Hashable, Sendable {
    public struct Entry: Codable, Hashable, Sendable {
        public var value: String?
        public var updatedAtMs: Int64?

        enum CodingKeys: String, CodingKey {
            case value
            case updatedAtMs = "updated_at_ms"
        }

        public init(from decoder: any Decoder) throws {
            let container: KeyedDecodingContainer<CodingKeys>
            do { container = try decoder.container(keyedBy: CodingKeys.self) } catch { throw AttributesRequest.malformed }
            do {
                value = try container.decodeIfPresent(String.self, forKey: .value)
                updatedAtMs = try container.decodeIfPresent(Int64.self, forKey: .updatedAtMs)
            } catch {
                throw AttributesRequest.malformed
            }
        }

        public init(value: String?, updatedAtMs: Int64?) {
            self.value = value
            self.updatedAtMs = updatedAtMs
        }
    }

    public var attributes: [String: Entry]

    enum CodingKeys: String, CodingKey { case attributes }

    public init(from decoder: any Decoder) throws {
        do {
            attributes = try decoder.container(keyedBy: CodingKeys.self).decode([String: Entry].self, forKey: .attributes)
        } catch let error as APIError {
            throw error
        } catch {
            throw Self.malformed
        }
        guard attributes.count <= SubscriberAttributeRules.maxKeysPerRequest else {
            throw APIError(.invalidSubscriberAttributesBody, "At most \(SubscriberAttributeRules.maxKeysPerRequest) attributes in one request.")
        }
    }

    public init(attributes: [String: Entry]) { self.attributes = attributes }

    /// The changes to apply; a missing `updated_at_ms` is `now`.
    func changes(now: Date) -> [SubscriberAttributeRules.Change] {
        attributes.map { key, entry in
            SubscriberAttributeRules.Change(
                key: key, value: entry.value,
                updatedAt: entry.updatedAtMs.map(Date.init(milliseconds:)) ?? now)
        }
    }

    static let malformed = APIError(
        .invalidSubscriberAttributesBody, "The body must be {\"attributes\": {key: {\"value\": string or null, \"updated_at_ms\": integer}}}.")
}
