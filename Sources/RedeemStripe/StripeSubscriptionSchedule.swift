import Foundation

/// A subscription schedule: how Stripe switches a subscription's Price when its period ends (a downgrade). Redeem makes
/// one from the subscription (or reads the one it has), gives it two phases (the current Price until the period's end,
/// then the new one), and releases it to drop the switch. Stripe's `customer.subscription.updated` at the period's end
/// carries the new Price, which the webhook applies.
public struct StripeSubscriptionSchedule: Sendable, Hashable, Decodable {
    public struct Phase: Sendable, Hashable, Decodable {
        public let startDate: Date
        public let endDate: Date?
        private enum CodingKeys: String, CodingKey {
            case startDate = "start_date"
            case endDate = "end_date"
        }
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            startDate = try c.decodeUnixTime(forKey: .startDate)
            endDate = try c.decodeUnixTimeIfPresent(forKey: .endDate)
        }
    }

    public let id: String
    public let phases: [Phase]
    /// `current_phase`'s dates, when the schedule is active.
    public let currentPhase: Phase?

    private enum CodingKeys: String, CodingKey {
        case id, phases
        case currentPhase = "current_phase"
    }

    /// The calls: make one from a subscription, read one, switch at the current phase's end, release.
    public enum Request: Sendable, Hashable {
        /// `POST /v1/subscription_schedules` with `from_subscription`.
        case create(subscriptionID: String)
        /// `GET /v1/subscription_schedules/{id}`.
        case read(scheduleID: String)
        /// `POST /v1/subscription_schedules/{id}`: `currentPrice` until the current phase ends (`phase`), then `newPrice`
        /// for one period of `interval`, after which the schedule lets the subscription go on as it is
        /// (`end_behavior=release`). Nothing is prorated: the switch falls on the period's end.
        /// `trial`: the current phase is a free trial, kept to its end (`phases[0][trial_end]`); the new Price is charged then.
        case switchAtPeriodEnd(
            scheduleID: String, phase: Phase, currentPrice: String, newPrice: String, interval: StripeRecurringInterval, trial: Bool = false)
        /// `POST /v1/subscription_schedules/{id}/release`: the subscription goes on with its current Price.
        case release(scheduleID: String)

        public func httpRequest(secretKey: String, idempotencyKey: String) throws(StripeRequestError) -> StripeHTTPRequest {
            let base = "https://api.stripe.com/v1/subscription_schedules"
            var method = "POST"
            let url: String
            var fields: [(key: String, value: String)] = []
            switch self {
            case .create(let subscription):
                url = base
                fields = [("from_subscription", try StripeSupportRequest.subscriptionSegment(subscription))]
            case .read(let schedule):
                method = "GET"
                url = base + "/" + (try Self.segment(schedule))
            case .switchAtPeriodEnd(let schedule, let phase, let current, let new, let interval, let trial):
                url = base + "/" + (try Self.segment(schedule))
                guard let end = phase.endDate else { throw StripeRequestError(field: "phase", reason: "has no end") }
                guard current.hasPrefix("price_"), new.hasPrefix("price_") else {
                    throw StripeRequestError(field: "price", reason: "must be a Price (price_…)")
                }
                fields =
                    [
                        ("end_behavior", "release"), ("proration_behavior", "none"),
                        ("phases[0][items][0][price]", current), ("phases[0][items][0][quantity]", "1"),
                        ("phases[0][start_date]", String(Int64(phase.startDate.timeIntervalSince1970))),
                        ("phases[0][end_date]", String(Int64(end.timeIntervalSince1970))),
                        ("phases[1][items][0][price]", new), ("phases[1][items][0][quantity]", "1"),
                        ("phases[1][duration][interval]", interval.unit.rawValue),
                        ("phases[1][duration][interval_count]", String(interval.count)),
                    ] + (trial ? [("phases[0][trial_end]", String(Int64(end.timeIntervalSince1970)))] : [])
            case .release(let schedule):
                url = base + "/" + (try Self.segment(schedule)) + "/release"
            }
            var headers = ["Authorization": "Bearer \(secretKey)", "Stripe-Version": StripeAPI.version]
            if method == "POST" {
                headers["Idempotency-Key"] = idempotencyKey
                headers["Content-Type"] = "application/x-www-form-urlencoded"
            }
            return StripeHTTPRequest(method: method, url: URL(string: url)!, headers: headers, body: StripeFormEncoding.encode(fields))
        }

        /// A schedule ID safe to put in a path.
        static func segment(_ id: String) throws(StripeRequestError) -> String {
            guard id.hasPrefix("sub_sched_"), id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                throw StripeRequestError(field: "schedule", reason: "must be a subscription schedule (sub_sched_…)")
            }
            return id
        }
    }

    /// The schedule in a 2xx answer; anything else is Stripe's error.
    public static func decode(statusCode: Int, body: some DataProtocol) throws(StripeAPIError) -> StripeSubscriptionSchedule {
        guard (200..<300).contains(statusCode) else { throw StripeAPIError(statusCode: statusCode, body: body) }
        guard let schedule = try? JSONDecoder().decode(StripeSubscriptionSchedule.self, from: Data(body)) else {
            throw StripeAPIError(type: "unexpected_response", message: "no subscription schedule", statusCode: statusCode)
        }
        return schedule
    }

    /// The phase running now: `current_phase` when Stripe gives it, else the first.
    public var runningPhase: Phase? { currentPhase ?? phases.first }
}
