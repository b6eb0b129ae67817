import Foundation

/// Formats dates as RFC 5322 `Date:` values in UTC, e.g. `Tue, 01 Jul 2025 09:05:00 +0000`.
enum RFC5322Date {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func format(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(weekdays[c.weekday! - 1]), \(two(c.day)) \(months[c.month! - 1]) \(c.year!) "
            + "\(two(c.hour)):\(two(c.minute)):\(two(c.second)) +0000"
    }
}
