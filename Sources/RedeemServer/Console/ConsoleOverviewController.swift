import Foundation
import Hummingbird
import RedeemCore

/// `/console/apps/{app_id}/overview`: subscription metrics and the funnel of the last 7, 30 or 90 days, drawn and in
/// numbers, for production or sandbox (`?environment=`). Any operator.
struct ConsoleOverviewController {
    let service: ConsoleService
    let metrics: SubscriptionMetricsService
    let pages: ConsolePages
    /// A new app's first steps, shown until every one is done.
    var firstSteps: FirstStepsService? = nil

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/console/apps/{app_id}/overview", use: overview)
    }

    @Sendable func overview(_ request: Request, context: ConsoleContext) async throws -> Response {
        let appID = try context.appID
        let asked = request.uri.queryParameters["days"].flatMap { Int($0) } ?? 30
        guard Funnel.windows.contains(asked) else { throw APIError.badRequest("days must be 7, 30 or 90.", field: "days") }
        let environmentName = request.uri.queryParameters["environment"].map(String.init) ?? MetricsEnvironment.production.rawValue
        guard let environment = MetricsEnvironment(rawValue: environmentName) else {
            throw APIError.badRequest("environment must be production or sandbox.", field: "environment")
        }
        let funnel = try await service.funnel(appID: appID, days: asked)
        let subscriptions = try await metrics.metrics(appID: appID, environment: environment, days: asked)
        let url = { (days: Int, environment: MetricsEnvironment) in "/console/apps/\(appID)/overview?environment=\(environment.rawValue)&days=\(days)"
        }
        let widest = funnel.steps.map(\.count).max() ?? 0
        var section = MetricsSection(subscriptions, days: asked, url: url)
        section.wontRenewURL = CustomerPresenter.listURL(
            appID: appID, filter: .wontRenew, environment: environment == .sandbox ? .sandbox : .production)
        let values = OverviewPage(
            metrics: section,
            firstSteps: try await firstSteps?.panel(try context.currentApp, evenWhenComplete: false),
            windows: Funnel.windows.map { OverviewPage.Window(days: $0, selected: $0 == asked, url: url($0, environment)) },
            days: asked, daysSVG: FunnelChart.days(funnel), dayScale: FunnelChart.dayScale(funnel),
            steps: funnel.steps.map {
                OverviewPage.Step(
                    name: $0.name, count: $0.count, rate: FunnelChart.rate($0.rate, of: $0.of), percent: FunnelChart.percent($0.rate),
                    bar: FunnelChart.bar($0.count, widest: widest))
            },
            offerRedemptions: funnel.totals.offerRedemptions, expiredUnused: funnel.expiredUnused, newLinkEmails: funnel.newLinkEmails,
            median: funnel.medianToRedeem.map(Self.duration) ?? "–", p90: funnel.p90ToRedeem.map(Self.duration) ?? "–",
            revenue: funnel.revenue.sorted { $0.key < $1.key }.map { PriceFormat.string(Price(amountMicros: $0.value, currency: $0.key)) },
            rows: funnel.days.reversed().filter(\.hasEvents).map { day in
                OverviewPage.Row(
                    day: String(ISODate.format(day.day).prefix(10)), checkouts: day.checkouts, purchases: day.purchases,
                    elsewhere: day.purchasesElsewhere, issued: day.linksIssued, opened: day.linksOpened, redeemed: day.linksRedeemed,
                    offers: day.offerRedemptions)
            },
            noRevenue: funnel.revenue.isEmpty, purchasesElsewhere: funnel.totals.purchasesElsewhere)
        return pages.page("console-overview", context: context, values)
    }

    /// "40 s", "12 min", "3.5 h", "2.1 days".
    static func duration(_ seconds: TimeInterval) -> String {
        switch seconds {
        case ..<60: String(format: "%.0f s", seconds)
        case ..<3600: String(format: "%.0f min", seconds / 60)
        case ..<172_800: String(format: "%.1f h", seconds / 3600)
        default: String(format: "%.1f days", seconds / 86_400)
        }
    }
}

/// The overview: the funnel's steps, its days, the time to redeem and the revenue.
struct OverviewPage: PageModel {
    let metrics: MetricsSection
    /// `console-first-steps`: nil, or hidden once complete.
    var firstSteps: FirstStepsPanel? = nil

    struct Window: Sendable {
        let days: Int
        let selected: Bool
        let url: String
    }

    struct Step: Sendable {
        let name: String
        let count: Int
        let rate: String
        /// " (29%)", or empty.
        let percent: String
        /// `FunnelChart.bar`.
        let bar: String
    }

    /// The per-day chart's first and last days and its tallest column, written under it.
    struct DayScale: Sendable {
        let first: String
        let last: String
        let peak: Int
    }

    struct Row: Sendable {
        let day: String
        let checkouts: Int
        let purchases: Int
        let elsewhere: Int
        let issued: Int
        let opened: Int
        let redeemed: Int
        let offers: Int
    }

    let windows: [Window]
    let days: Int
    let daysSVG: String
    let dayScale: DayScale
    let steps: [Step]
    let offerRedemptions: Int
    let expiredUnused: Int
    let newLinkEmails: Int
    let median: String
    let p90: String
    let revenue: [String]
    let rows: [Row]
    let noRevenue: Bool
    let purchasesElsewhere: Int
}
