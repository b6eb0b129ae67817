import Foundation
import RedeemCore

/// A price as clients send it: `amount` as a number or a decimal string, and an ISO 4217 code. Parsed and checked by
/// Core's `Price` (the currency's decimals); checkout's own limits are checked where a product or offer is priced.
public struct PriceInput: Codable, Hashable, Sendable {
    let price: Price

    /// Parses a decimal amount such as `4.99` and an ISO 4217 code.
    public init(amount: String, currency: String) throws {
        price = try Price(text: amount, currency: currency)
    }

    enum CodingKeys: String, CodingKey { case amount, currency }

    /// The amount as an exact decimal string with the currency's decimals (`4.99`, `500`), as the API reads it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(price.plainAmount, forKey: .amount)
        try container.encode(price.currency, forKey: .currency)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let currency = try container.decode(String.self, forKey: .currency)
        if let text = try? container.decode(String.self, forKey: .amount) {
            price = try Price(text: text, currency: currency)
        } else {
            price = try Price(amount: try container.decode(Decimal.self, forKey: .amount), currency: currency)
        }
    }
}
