/// A Price's `recurring[interval]` and `recurring[interval_count]`.
public struct StripeRecurringInterval: Sendable, Hashable {
    public enum Unit: String, Sendable, Hashable {
        case day, week, month, year
    }

    public let unit: Unit
    public let count: Int

    /// Stripe allows at most three years between billings.
    public init(unit: Unit, count: Int) throws(StripeRequestError) {
        let limit =
            switch unit {
            case .day: 1095
            case .week: 156
            case .month: 36
            case .year: 3
            }
        guard (1...limit).contains(count) else {
            throw StripeRequestError(field: "period", reason: "must be between 1 \(unit.rawValue) and 3 years")
        }
        self.unit = unit
        self.count = count
    }

    /// From an ISO 8601 period such as `P1W`, `P1M`, `P3M` or `P1Y`. `P1Y6M` becomes
    /// 18 months and `P1W3D` 10 days; mixing months or years with weeks or days is rejected.
    public init(iso8601 period: String) throws(StripeRequestError) {
        let failure = StripeRequestError(field: "period", reason: "must be an ISO 8601 period such as P1W, P1M, P3M or P1Y")
        guard period.first == "P" else { throw failure }
        var parts: [Character: Int] = [:]
        var digits = ""
        var last = -1
        let order: [Character] = ["Y", "M", "W", "D"]
        for ch in period.dropFirst() {
            if ch.isASCIIDigit {
                digits.append(ch)
            } else if let index = order.firstIndex(of: ch), index > last, digits.count <= 5, let value = Int(digits) {
                parts[ch] = value
                last = index
                digits = ""
            } else {
                throw failure
            }
        }
        guard digits.isEmpty, !parts.isEmpty else { throw failure }
        let years = parts["Y"] ?? 0
        let months = parts["M"] ?? 0
        let weeks = parts["W"] ?? 0
        let days = parts["D"] ?? 0
        switch (years + months > 0, weeks + days > 0) {
        case (true, false) where months == 0: try self.init(unit: .year, count: years)
        case (true, false): try self.init(unit: .month, count: years * 12 + months)
        case (false, true) where days == 0: try self.init(unit: .week, count: weeks)
        case (false, true): try self.init(unit: .day, count: weeks * 7 + days)
        default: throw failure
        }
    }
}
