import Foundation
import RedeemCore

/// The funnel drawn on the server as SVG (presentation attributes only, so the pages' CSP needs no inline styles): a bar
/// per step, beside the step's name and count written as HTML (so their text keeps its size on a phone, where a chart
/// scaled to fit would shrink it), and one pair of columns per day (purchases, links redeemed).
enum FunnelChart {
    /// A step's bar: its count against the widest step's, on a faint track the width of the widest.
    static func bar(_ count: Int, widest: Int) -> String {
        let width = max(0.6, Double(count) / Double(max(1, widest)) * 100)
        return ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 16" preserveAspectRatio="none" aria-hidden="true" focusable="false">"##
            + ##"<rect width="100" height="16" fill="currentColor" fill-opacity=".08"/>"##
            + ##"<rect width="\##(String(format: "%.1f", width))" height="16" fill="#5b5bd6"/></svg>"##
    }

    static func days(_ funnel: Funnel) -> String {
        let tallest = max(1, peak(funnel))
        let step = 12
        let plot = 120
        let width = max(step * funnel.days.count, 120)
        var svg =
            ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \##(width) \##(plot + 20)" role="img" aria-label="Purchases and links redeemed per day" preserveAspectRatio="none">"##
        for (index, day) in funnel.days.enumerated() {
            let x = index * step
            for (offset, value, color) in [(1, day.purchases + day.purchasesElsewhere, "#5b5bd6"), (6, day.linksRedeemed, "#2f9e5b")] where value > 0
            {
                let height = max(1, Int(Double(value) / Double(tallest) * Double(plot)))
                svg +=
                    ##"<rect x="\##(x + offset)" y="\##(plot - height)" width="5" height="\##(height)" fill="\##(color)"><title>\##(ISODate.format(day.day).prefix(10)): \##(value)</title></rect>"##
            }
        }
        svg += ##"<line x1="0" y1="\##(plot)" x2="\##(width)" y2="\##(plot)" stroke="currentColor" stroke-opacity=".3"/>"##
        return svg + "</svg>"
    }

    static func percent(_ rate: Double?) -> String {
        guard let rate else { return "" }
        return String(format: " (%.0f%%)", rate * 100)
    }

    /// The per-day chart's tallest column: a day's purchases or its links redeemed.
    static func peak(_ funnel: Funnel) -> Int {
        funnel.days.map { max($0.purchases + $0.purchasesElsewhere, $0.linksRedeemed) }.max() ?? 0
    }

    /// The per-day chart's scale, written under it.
    static func dayScale(_ funnel: Funnel) -> OverviewPage.DayScale {
        let day = { (date: Date?) in date.map { String(ISODate.format($0).prefix(10)) } ?? "" }
        return OverviewPage.DayScale(first: day(funnel.days.first?.day), last: day(funnel.days.last?.day), peak: peak(funnel))
    }

    /// "25% of checkouts started", "1.5 per purchase", or empty.
    static func rate(_ rate: Double?, of base: String?) -> String {
        guard let rate, let base else { return "" }
        return String(format: "%.0f%% of %@", rate * 100, base)
    }
}
