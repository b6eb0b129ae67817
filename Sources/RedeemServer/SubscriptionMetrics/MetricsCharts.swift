import Foundation
import RedeemCore

/// Subscription metrics drawn on the server as SVG (presentation attributes only, so the pages' CSP needs no inline
/// styles), in a 400-unit-wide box whose text stays legible from a 390 px phone to a desktop: a y axis with its
/// bounds, and dated ticks at the window's start, middle and end.
enum MetricsCharts {
    static let width = 400
    static let height = 190
    static let left = 56
    static let right = 8
    static let top = 10
    static let bottom = 30

    /// Revenue per day in one currency: a column per day, up from zero (down for a day of refunds).
    static func revenue(_ metrics: SubscriptionMetrics, currency: String) -> String {
        let values = metrics.days.map { $0.revenue[currency] ?? 0 }
        let high = max(values.max() ?? 0, 0)
        let low = min(values.min() ?? 0, 0)
        let span = max(high - low, 1)
        let plot = Double(height - top - bottom)
        let y = { (value: Int64) in Double(top) + Double(high - value) / Double(span) * plot }
        let step = Double(width - left - right) / Double(max(values.count, 1))
        let label = { (micros: Int64) in Price(amountMicros: micros, currency: currency).plainAmount }
        var svg = open("Revenue per day in \(currency)")
        // Zero gets its label when it sits apart from both bounds.
        let zero = low < 0 && y(0) - y(high) > 14 && y(low) - y(0) > 14 ? [(y(0), "0")] : []
        svg += axis(yLabels: [(y(high), label(high)), (y(low), label(low))] + zero, days: metrics.days.map(\.day))
        for (index, value) in values.enumerated() where value != 0 {
            let x = Double(left) + Double(index) * step + step * 0.15
            let top = min(y(value), y(0))
            let bar = max(abs(y(value) - y(0)), 1)
            svg +=
                ##"<rect x="\##(fmt(x))" y="\##(fmt(top))" width="\##(fmt(step * 0.7))" height="\##(fmt(bar))" fill="\##(value < 0 ? "#c2410c" : "#5b5bd6")"><title>\##(day(metrics.days[index].day)): \##(label(value)) \##(currency)</title></rect>"##
        }
        return svg + "</svg>"
    }

    /// Active subscriptions (violet) and active trials (green) at each day's end.
    static func active(_ metrics: SubscriptionMetrics) -> String {
        let subscriptions = metrics.days.map(\.activeSubscriptions)
        let trials = metrics.days.map(\.activeTrials)
        let high = max((subscriptions + trials).max() ?? 0, 1)
        let plot = Double(height - top - bottom)
        let y = { (value: Int) in Double(top) + Double(high - value) / Double(high) * plot }
        let count = max(metrics.days.count - 1, 1)
        let x = { (index: Int) in Double(left) + Double(index) / Double(count) * Double(width - left - right) }
        var svg = open("Active subscriptions and trials per day")
        svg += axis(yLabels: [(y(high), String(high)), (y(0), "0")], days: metrics.days.map(\.day))
        for (series, color, name) in [(subscriptions, "#5b5bd6", "subscriptions"), (trials, "#2f9e5b", "trials")] {
            let points = series.enumerated().map { "\(fmt(x($0.offset))),\(fmt(y($0.element)))" }.joined(separator: " ")
            svg += ##"<polyline points="\##(points)" fill="none" stroke="\##(color)" stroke-width="2.5"/>"##
            for (index, value) in series.enumerated() {
                svg +=
                    ##"<circle cx="\##(fmt(x(index)))" cy="\##(fmt(y(value)))" r="5" fill="transparent"><title>\##(day(metrics.days[index].day)): \##(value) \##(name)</title></circle>"##
            }
        }
        return svg + "</svg>"
    }

    private static func open(_ label: String) -> String {
        ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \##(width) \##(height)" role="img" aria-label="\##(label)">"##
    }

    /// The axes, the y labels given, and the first, middle and last days as ticks.
    private static func axis(yLabels: [(Double, String)], days: [Date]) -> String {
        let baseline = height - bottom
        var svg = ##"<line x1="\##(left)" y1="\##(top)" x2="\##(left)" y2="\##(baseline)" stroke="currentColor" stroke-opacity=".4"/>"##
        svg += ##"<line x1="\##(left)" y1="\##(baseline)" x2="\##(width - right)" y2="\##(baseline)" stroke="currentColor" stroke-opacity=".4"/>"##
        for (y, text) in yLabels {
            svg += ##"<text x="\##(left - 6)" y="\##(fmt(y + 4))" font-size="12" text-anchor="end" fill="currentColor">\##(text)</text>"##
            svg += ##"<line x1="\##(left)" y1="\##(fmt(y))" x2="\##(width - right)" y2="\##(fmt(y))" stroke="currentColor" stroke-opacity=".12"/>"##
        }
        guard !days.isEmpty else { return svg }
        let plotWidth = Double(width - left - right)
        let ticks = Array(Set([0, (days.count - 1) / 2, days.count - 1])).sorted()
        for index in ticks {
            let x = Double(left) + (days.count == 1 ? plotWidth / 2 : Double(index) / Double(days.count - 1) * plotWidth)
            let anchor = index == 0 && days.count > 1 ? "start" : index == days.count - 1 && days.count > 1 ? "end" : "middle"
            svg += ##"<line x1="\##(fmt(x))" y1="\##(baseline)" x2="\##(fmt(x))" y2="\##(baseline + 4)" stroke="currentColor" stroke-opacity=".4"/>"##
            svg +=
                ##"<text x="\##(fmt(x))" y="\##(baseline + 18)" font-size="12" text-anchor="\##(anchor)" fill="currentColor">\##(day(days[index]))</text>"##
        }
        return svg
    }

    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// "Nov 5" (UTC).
    static func day(_ date: Date) -> String {
        let text = ISODate.format(date)
        let month = Int(text.dropFirst(5).prefix(2)) ?? 1
        let dayNumber = Int(text.dropFirst(8).prefix(2)) ?? 1
        return "\(months[month - 1]) \(dayNumber)"
    }

    private static func fmt(_ value: Double) -> String { String(format: "%.1f", value) }
}
