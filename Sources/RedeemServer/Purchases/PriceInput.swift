import Foundation
import RedeemCore

/// A price as clients send it: `amount` as a number or a decimal string.
public struct PriceInput: Codable, Hashable, Sendable {
    let amountMicros: Int64
    let currency: String

    /// Parses a decimal amount such as `4.99` and an ISO-4217 code.
    public init(amount: String, currency: String) throws {
        let data = try JSONSerialization.data(withJSONObject: ["amount": amount, "currency": currency])
        self = try JSONDecoder().decode(PriceInput.self, from: data)
    }

    var price: Price { Price(amountMicros: amountMicros, currency: currency) }

    enum CodingKeys: String, CodingKey { case amount, currency }

    /// The amount as an exact decimal string (`4.99`), as the API reads it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let whole = amountMicros / 1_000_000
        let fraction = String(amountMicros % 1_000_000).leftPadded(to: 6)
        try container.encode("\(whole).\(fraction)", forKey: .amount)
        try container.encode(currency, forKey: .currency)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text: String
        if let string = try? container.decode(String.self, forKey: .amount) {
            text = string
        } else {
            text = "\(try container.decode(Decimal.self, forKey: .amount))"
        }
        guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), decimal >= 0, decimal < 1_000_000_000 else {
            throw ValidationError(field: "price.amount", reason: "must be a non-negative decimal amount")
        }
        var micros = decimal * 1_000_000
        var rounded = Decimal()
        NSDecimalRound(&rounded, &micros, 0, .plain)
        self.amountMicros = NSDecimalNumber(decimal: rounded).int64Value
        self.currency = try container.decode(String.self, forKey: .currency)
        guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            throw ValidationError(field: "price.currency", reason: "must be an ISO-4217 code such as USD")
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
