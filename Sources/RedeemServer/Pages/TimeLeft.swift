import Foundation

/// How long a link has left, in words a buyer reads: never more than the truth, and never "1 minutes".
enum TimeLeft {
    /// "59 minutes", "1 minute", "less than a minute"; from two hours on, whole hours ("5 hours"), and from two days
    /// on, whole days ("6 days"): always rounded down, so a buyer is never told more time than there is.
    static func words(seconds: Int) -> String {
        let minutes = max(0, seconds) / 60
        let hours = minutes / 60
        let days = hours / 24
        switch minutes {
        case 0: return "less than a minute"
        case 1: return "1 minute"
        case ..<120: return "\(minutes) minutes"
        default: return days >= 2 ? "\(days) days" : "\(hours) hours"
        }
    }

    static func words(until date: Date, from now: Date) -> String { words(seconds: Int(date.timeIntervalSince(now))) }
}
