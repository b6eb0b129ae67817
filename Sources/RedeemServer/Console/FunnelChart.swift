import Foundation
import RedeemCore

/// The funnel drawn on the server as SVG (presentation attributes only, so the pages' CSP needs no inline styles):
/// one horizontal bar per step, and one pair of columns per day (purchases, links redeemed).
enum FunnelChart {
    static func steps(_ funnel: Funnel) -> String {
        let steps = funnel.steps
        let widest = max(1, steps.map(\.count).max() ?? 1)
        let rowHeight = 34
        let height = rowHeight * steps.count
        var svg = ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 \##(height)" role="img" aria-label="The funnel's steps">"##
        for (index, step) in steps.enumerated() {
            let y = index * rowHeight
            let width = max(2, Int(Double(step.count) / Double(widest) * 330))
            svg += ##"<text x="0" y="\##(y + 21)" font-size="13" fill="currentColor">\##(step.name)</text>"##
            svg += ##"<rect x="200" y="\##(y + 6)" width="\##(width)" height="22" rx="4" fill="#5b5bd6"/>"##
            svg +=
                ##"<text x="\##(208 + width)" y="\##(y + 21)" font-size="13" fill="currentColor">\##(step.count)\##(percent(step.rate))</text>"##
        }
        return svg + "</svg>"
    }

    static func days(_ funnel: Funnel) -> String {
        let tallest = max(1, funnel.days.map { max($0.purchases + $0.purchasesElsewhere, $0.linksRedeemed) }.max() ?? 1)
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

    /// "25% of checkouts started", "1.5 per purchase", or empty.
    static func rate(_ rate: Double?, of base: String?) -> String {
        guard let rate, let base else { return "" }
        return String(format: "%.0f%% of %@", rate * 100, base)
    }
}
