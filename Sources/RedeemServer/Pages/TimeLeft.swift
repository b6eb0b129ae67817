import Foundation

/// How long a link has left, in words a buyer reads: never more than the truth, and never "1 minutes".
enum TimeLeft {
    /// "59 minutes", "1 minute", or "less than a minute".
    static func words(seconds: Int) -> String {
        let minutes = max(0, seconds) / 60
        switch minutes {
        case 0: return "less than a minute"
        case 1: return "1 minute"
        default: return "\(minutes) minutes"
        }
    }

    static func words(until date: Date, from now: Date) -> String { words(seconds: Int(date.timeIntervalSince(now))) }
}
