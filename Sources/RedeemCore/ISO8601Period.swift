import Foundation

/// A subscription period such as `P1W`, `P1M`, `P1Y` or `P3D`.
public struct ISO8601Period: Hashable, Sendable, CustomStringConvertible {
    public let years: Int
    public let months: Int
    public let weeks: Int
    public let days: Int

    public init(years: Int = 0, months: Int = 0, weeks: Int = 0, days: Int = 0) {
        self.years = years
        self.months = months
        self.weeks = weeks
        self.days = days
    }

    /// Parses `PnYnMnWnD` (date parts only), at least one non-zero part.
    public init(parsing string: String) throws(ValidationError) {
        let failure = ValidationError(field: "period", reason: "must be an ISO-8601 period such as P1W, P1M or P1Y")
        var rest = Substring(string)
        guard rest.first == "P" else { throw failure }
        rest = rest.dropFirst()
        var parts: [Character: Int] = [:]
        var number = ""
        let order: [Character] = ["Y", "M", "W", "D"]
        var lastIndex = -1
        for ch in rest {
            if ch.isASCII, ch.isNumber {
                number.append(ch)
            } else if let index = order.firstIndex(of: ch), index > lastIndex, let value = Int(number), value <= 1000 {
                parts[ch] = value
                lastIndex = index
                number = ""
            } else {
                throw failure
            }
        }
        guard number.isEmpty, !parts.isEmpty, parts.values.contains(where: { $0 > 0 }) else { throw failure }
        self.init(years: parts["Y"] ?? 0, months: parts["M"] ?? 0, weeks: parts["W"] ?? 0, days: parts["D"] ?? 0)
    }

    public var description: String {
        var s = "P"
        if years > 0 { s += "\(years)Y" }
        if months > 0 { s += "\(months)M" }
        if weeks > 0 { s += "\(weeks)W" }
        if days > 0 { s += "\(days)D" }
        return s
    }

    /// `date` moved forward by this period `count` times, in UTC calendar arithmetic.
    public func advance(_ date: Date, times count: Int = 1) -> Date {
        var components = DateComponents()
        components.year = years * count
        components.month = months * count
        components.day = (weeks * 7 + days) * count
        return Self.calendar.date(byAdding: components, to: date) ?? date
    }

    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
