import Foundation

/// How long a link has left, in words a buyer reads: never more than the truth, and never "1 minutes".
enum TimeLeft {
    /// "59 minutes", "1 minute", "less than a minute"; from two hours on, whole hours ("5 hours"), and from two days
    /// on, whole days ("6 days"): always rounded down, so a buyer is never told more time than there is.
    static func words(seconds: Int, texts: BuyerTexts = .current) -> String {
        let minutes = max(0, seconds) / 60
        let hours = minutes / 60
        let days = hours / 24
        switch minutes {
        case 0: return texts["time.under_a_minute"]
        case ..<120: return texts.count(minutes, "unit.minute")
        default: return days >= 2 ? texts.count(days, "unit.day") : texts.count(hours, "unit.hour")
        }
    }

    static func words(until date: Date, from now: Date, texts: BuyerTexts = .current) -> String {
        words(seconds: Int(date.timeIntervalSince(now)), texts: texts)
    }
}
