import Foundation

/// A price as sent by the backend. `amount` may arrive as a JSON number or a numeric string.
public struct Price: Hashable, Sendable, Codable {
    public let currency: String
    public let amount: Decimal

    public init(currency: String, amount: Decimal) {
        self.currency = currency
        self.amount = amount
    }

    private enum CodingKeys: String, CodingKey {
        case currency, amount
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        currency = try container.decode(String.self, forKey: .currency)
        // A number goes through its shortest decimal spelling ("4.99"), not Double's binary value.
        let text: String
        if let string = try? container.decode(String.self, forKey: .amount) {
            text = string.trimmingCharacters(in: .whitespaces)
        } else {
            text = "\(try container.decode(Double.self, forKey: .amount))"
        }
        guard let amount = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            throw DecodingError.dataCorruptedError(forKey: .amount, in: container, debugDescription: "Not a number: \(text)")
        }
        self.amount = amount
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(currency, forKey: .currency)
        try container.encode("\(amount)", forKey: .amount)
    }
}
