import Foundation

/// An amount of money, exact: millionths of the currency's major unit (4.99 USD is 4_990_000, 500 JPY is 500_000_000,
/// 1.250 KWD is 1_250_000), so every ISO 4217 exponent up to 6 fits. Every conversion to or from other units (decimal
/// text, ISO minor units, Stripe's integers, JSON numbers) is here; nothing else scales an amount by a power of ten.
public struct Price: Codable, Hashable, Sendable {
    public var amountMicros: Int64
    public var currency: String

    public init(amountMicros: Int64, currency: String) {
        self.amountMicros = amountMicros
        self.currency = currency
    }

    static let microsPerUnit: Int64 = 1_000_000

    /// Micros in one of the currency's ISO minor units (10,000 for cents), or in one of Stripe's units.
    private static func micros(perUnitOf exponent: Int) -> Int64 {
        (0..<(6 - min(max(exponent, 0), 6))).reduce(1) { value, _ in value * 10 }
    }

    /// An amount such as `4.99`: refused when the currency is not an ISO 4217 code, or when the amount is negative, too
    /// large, or has more decimals than the currency (`500.5 JPY`). `field` names the price in the error.
    public init(amount: Decimal, currency: String, field: String = "price") throws(ValidationError) {
        guard let known = Currency(code: currency) else {
            throw ValidationError(field: "\(field).currency", reason: "'\(currency)' is not an ISO 4217 currency code such as USD")
        }
        guard amount >= 0, amount < 1_000_000_000 else {
            throw ValidationError(field: "\(field).amount", reason: "must be between 0 and 999,999,999")
        }
        var micros = amount * Decimal(Self.microsPerUnit)
        var whole = Decimal()
        NSDecimalRound(&whole, &micros, 0, .plain)
        let value = NSDecimalNumber(decimal: whole).int64Value
        guard whole == micros, value % Self.micros(perUnitOf: known.exponent) == 0 else {
            let decimals = known.exponent == 0 ? "no decimals" : known.exponent == 1 ? "1 decimal" : "\(known.exponent) decimals"
            throw ValidationError(field: "\(field).amount", reason: "\(currency) amounts have \(decimals)")
        }
        self.init(amountMicros: value, currency: currency)
    }

    /// Decimal text in the API's form (`4.99`, `500`; a point, never a comma).
    public init(text: String, currency: String, field: String = "price") throws(ValidationError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let amount = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
        else {
            throw ValidationError(field: "\(field).amount", reason: "must be a decimal amount such as 4.99")
        }
        try self.init(amount: amount, currency: currency, field: field)
    }

    public var knownCurrency: Currency? { Currency(code: currency) }

    /// The exact amount in major units.
    public var decimalAmount: Decimal { Decimal(amountMicros) / Decimal(Self.microsPerUnit) }

    /// The amount as a JSON number (CustomerInfo's `price.amount`, webhooks' `price_in_purchased_currency`).
    public var amount: Double { NSDecimalNumber(decimal: decimalAmount).doubleValue }

    /// Decimals to show: the currency's own; 2 for a code not in ISO 4217 (kept from before codes were checked).
    public var decimals: Int { knownCurrency?.exponent ?? 2 }

    /// `4.99`, `500`, `1.250`, `-4.99` (a day of refunds): the currency's own number of decimals, rounded half away
    /// from zero if the stored amount is finer.
    public var plainAmount: String {
        guard amountMicros >= 0 else {
            return "-" + Price(amountMicros: amountMicros == .min ? .max : -amountMicros, currency: currency).plainAmount
        }
        let step = Self.micros(perUnitOf: decimals)
        let units = amountMicros / step + (amountMicros % step >= (step + 1) / 2 ? 1 : 0)  // no overflow near Int64.max
        guard decimals > 0 else { return String(units) }
        var divisor: Int64 = 1
        for _ in 0..<decimals { divisor *= 10 }
        let fraction = String(units % divisor)
        return "\(units / divisor)." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }

    /// This price `count` times (a pay-as-you-go offer's periods paid at once).
    public func times(_ count: Int) -> Price { Price(amountMicros: amountMicros * Int64(count), currency: currency) }

    /// Why checkout cannot charge this price through Stripe, or nil: Stripe does not take the currency, or the
    /// amount is finer than Stripe charges it (three-decimal currencies in steps of 0.010, ISK and MGA in whole units).
    public var stripeRefusal: String? {
        guard let known = knownCurrency else { return "'\(currency)' is not an ISO 4217 currency code" }
        guard let units = known.stripe else { return "Stripe cannot charge \(currency)" }
        let step = Self.micros(perUnitOf: units.exponent) * Int64(units.step)
        guard amountMicros % step == 0 else {
            let smallest = Price(amountMicros: step, currency: currency).plainAmount
            return "Stripe charges \(currency) in steps of \(smallest) \(currency)"
        }
        return nil
    }

    /// Checks the price can be charged, naming `field` (`price`, `offer.price`) when it cannot.
    public func validateChargeable(field: String = "price") throws(ValidationError) {
        guard let reason = stripeRefusal else { return }
        throw ValidationError(field: knownCurrency?.stripe == nil ? "\(field).currency" : "\(field).amount", reason: reason)
    }

    /// Stripe's integer amount (`unit_amount`), in Stripe's units for the currency.
    public func stripeAmount() throws(MoneyError) -> Int {
        if let reason = stripeRefusal { throw MoneyError(reason) }
        guard let units = knownCurrency?.stripe else { throw MoneyError("Stripe cannot charge \(currency)") }
        return Int(amountMicros / Self.micros(perUnitOf: units.exponent))
    }

    /// An amount as Stripe reports it (`amount_total`, `amount_refunded`), with its lowercase currency code.
    public init(stripeAmount: Int, currency code: String) throws(MoneyError) {
        let currency = code.uppercased()
        guard let units = Currency(code: currency)?.stripe else { throw MoneyError("Stripe reported an amount in an unknown currency '\(code)'") }
        guard stripeAmount >= 0 else { throw MoneyError("Stripe reported a negative amount") }
        let (micros, overflow) = Int64(stripeAmount).multipliedReportingOverflow(by: Self.micros(perUnitOf: units.exponent))
        guard !overflow else { throw MoneyError("Stripe reported an amount too large to hold") }
        self.init(amountMicros: micros, currency: currency)
    }

    enum CodingKeys: String, CodingKey {
        case currency
        case amountMicros = "amount_micros"
    }
}

/// An amount that cannot be converted: Stripe cannot charge it, or reported one that cannot be read.
public struct MoneyError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
