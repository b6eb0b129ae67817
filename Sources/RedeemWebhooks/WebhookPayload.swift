import Foundation

/// The request body: `{"api_version":"1.0","event":{…}}`, with sorted keys so equal events give equal bytes.
public enum WebhookPayload {
    public static let apiVersion = "1.0"
    public static let contentType = "application/json"

    public static func body(_ event: WebhookEvent) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Cannot throw: only strings, integers, booleans and finite doubles (others are encoded as null).
        return Array(try! encoder.encode(Envelope(apiVersion: apiVersion, event: event)))
    }

    /// Reads a body back, for receivers and tests.
    public static func event(from body: [UInt8]) throws -> WebhookEvent {
        try JSONDecoder().decode(Envelope.self, from: Data(body)).event
    }

    struct Envelope: Codable {
        var apiVersion: String
        var event: WebhookEvent

        enum CodingKeys: String, CodingKey {
            case event
            case apiVersion = "api_version"
        }
    }
}
