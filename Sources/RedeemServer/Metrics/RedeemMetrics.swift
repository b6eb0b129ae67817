import Foundation
import Metrics
import NIOConcurrencyHelpers
import RedeemCore
import RedeemStore

/// What Redeem counts, through swift-metrics: nothing is recorded unless `serve --metrics-port` bootstrapped the
/// Prometheus backend (`MetricsServer`). Handles are made once per label set and kept, so a request pays a dictionary
/// lookup, not a registry lookup. The names and labels are listed in docs/metrics.md.
enum RedeemMetrics {
    static func request(method: String, route: String, status: Int, elapsed: Duration) {
        let labels = [("route", route), ("method", method), ("status", String(status))]
        counters.handle("redeem_http_requests_total", labels).increment()
        timers.handle("redeem_http_request_duration_seconds", [("route", route), ("method", method)]).recordNanoseconds(elapsed.nanoseconds)
    }

    /// A redemption link presented in the app: `redeemed`, `invalid`, `expired`, `subscription_expired`, `other_app`,
    /// `belongs_to_other_user`.
    static func redemption(_ outcome: String) { counters.handle("redeem_redemptions_total", [("outcome", outcome)]).increment() }

    /// An offer code redeemed in the app or on the web: `redeemed`, or why not (`invalid`, `expired`, `exhausted`, …).
    static func offerCodeRedemption(_ outcome: String, channel: String) {
        counters.handle("redeem_offer_code_redemptions_total", [("outcome", outcome), ("channel", channel)]).increment()
    }

    /// A purchase recorded: `server_api`, `stripe`, `sandbox_checkout`, `offer_code`, `promotional`, `cli`.
    static func purchase(source: String) { counters.handle("redeem_purchases_total", [("source", source)]).increment() }

    /// A request refused by a rate limit, by which limit (`redeem_ip`, `sign_in_account`, …).
    static func rateLimited(_ limit: String) { counters.handle("redeem_rate_limited_total", [("limit", limit)]).increment() }

    /// An e-mail delivery attempt: `sent`, `retry` or `failed`.
    static func emailAttempt(_ result: String) { counters.handle("redeem_email_attempts_total", [("result", result)]).increment() }

    /// A Customer Center support ticket e-mailed to the app's support address.
    static func supportTicket() { counters.handle("redeem_support_tickets_total", []).increment() }

    /// A webhook delivery attempt: `delivered`, `retry` or `failed`.
    static func webhookAttempt(_ result: String) { counters.handle("redeem_webhook_attempts_total", [("result", result)]).increment() }

    static let counters = Handles { Counter(label: $0, dimensions: $1) }
    static let timers = Handles { Timer(label: $0, dimensions: $1) }

    /// Metric handles by name and labels, made on first use.
    final class Handles<Handle: Sendable>: Sendable {
        private let make: @Sendable (String, [(String, String)]) -> Handle
        private let handles = NIOLockedValueBox([String: Handle]())

        init(_ make: @escaping @Sendable (String, [(String, String)]) -> Handle) { self.make = make }

        func handle(_ name: String, _ labels: [(String, String)]) -> Handle {
            let key = labels.reduce(name) { $0 + "\u{1}" + $1.0 + "=" + $1.1 }
            return handles.withLockedValue { handles in
                if let handle = handles[key] { return handle }
                let handle = make(name, labels)
                handles[key] = handle
                return handle
            }
        }
    }
}

extension Result where Success == OfferCodeRedemption, Failure == OfferRedemptionFailure {
    /// `redeemed`, or the refusal's name.
    var metricName: String {
        switch self {
        case .success: "redeemed"
        case .failure(let failure): failure.rawValue
        }
    }
}
