import Foundation

/// How an offer is paid, as App Store offer codes name it.
public enum OfferPaymentMode: String, Codable, CaseIterable, Sendable {
    /// Free for the duration (for a one-time product: the product for free).
    case freeTrial = "free_trial"
    /// `price` for each of `periods` periods.
    case payAsYouGo = "pay_as_you_go"
    /// `price` once, for the whole duration (for a one-time product: the product at `price`).
    case payUpFront = "pay_up_front"
}

/// The durations App Store offer codes allow, as ISO-8601 periods.
public enum OfferDuration: String, Codable, CaseIterable, Sendable {
    case threeDays = "P3D"
    case oneWeek = "P1W"
    case twoWeeks = "P2W"
    case oneMonth = "P1M"
    case twoMonths = "P2M"
    case threeMonths = "P3M"
    case sixMonths = "P6M"
    case oneYear = "P1Y"

    public var period: ISO8601Period { try! ISO8601Period(parsing: rawValue) }
}

/// An offer on one product: what a code grants, to whom, and when.
public struct Offer: Codable, Hashable, Sendable {
    public var id: String
    public var appID: String
    public var productID: String
    /// What transactions (`offer_code_ref_name`) and notifications carry; unique per app.
    public var referenceName: String
    public var paymentMode: OfferPaymentMode
    /// Subscriptions only: the length of one offer period.
    public var duration: OfferDuration?
    /// Subscriptions only: how many periods the offer lasts (1 for pay-up-front).
    public var periods: Int
    /// Nil for free offers; per period for pay-as-you-go, in total for pay-up-front.
    public var price: Price?
    /// What claiming the offer on the web charges at once: the price, times its periods for pay as you go.
    public var charge: Price? { price?.times(paymentMode == .payAsYouGo ? periods : 1) }
    public var eligibility: OfferEligibility
    public var startsAt: Date?
    public var endsAt: Date?
    public var isActive: Bool
    public var createdAt: Date

    public init(
        id: String, appID: String, productID: String, referenceName: String, paymentMode: OfferPaymentMode,
        duration: OfferDuration?, periods: Int = 1, price: Price? = nil, eligibility: OfferEligibility,
        startsAt: Date? = nil, endsAt: Date? = nil, isActive: Bool = true, createdAt: Date
    ) {
        self.id = id
        self.appID = appID
        self.productID = productID
        self.referenceName = referenceName
        self.paymentMode = paymentMode
        self.duration = duration
        self.periods = periods
        self.price = price
        self.eligibility = eligibility
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.isActive = isActive
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, duration, periods, price, eligibility
        case appID = "app_id"
        case productID = "product_id"
        case referenceName = "reference_name"
        case paymentMode = "payment_mode"
        case startsAt = "starts_at"
        case endsAt = "ends_at"
        case isActive = "active"
        case createdAt = "created_at"
    }

    /// Active offers a subscription product may have at once, as on the App Store.
    public static let maxActivePerSubscription = 10

    /// True when the buyer pays something for it.
    public var isPaid: Bool { paymentMode != .freeTrial }

    /// The whole offer length (`duration` × `periods`), e.g. `P3M`; nil for one-time products.
    public var totalPeriod: ISO8601Period? {
        duration.map { d in
            let p = d.period
            return ISO8601Period(years: p.years * periods, months: p.months * periods, weeks: p.weeks * periods, days: p.days * periods)
        }
    }

    /// Checks the offer against its product: the fields each payment mode and product type needs.
    public func validate(for product: Product) throws(ValidationError) {
        guard (1...64).contains(referenceName.count), !referenceName.contains(where: \.isNewline) else {
            throw ValidationError(field: "reference_name", reason: "must be 1–64 characters on one line")
        }
        guard !eligibility.isEmpty else {
            throw ValidationError(field: "eligibility", reason: "must name at least one of new, existing, expired")
        }
        if let startsAt, let endsAt, endsAt <= startsAt {
            throw ValidationError(field: "ends_at", reason: "must be after starts_at")
        }
        switch paymentMode {
        case .freeTrial:
            guard price == nil else { throw ValidationError(field: "price", reason: "a free_trial offer has no price") }
        case .payAsYouGo, .payUpFront:
            guard let price, price.amountMicros > 0 else {
                throw ValidationError(field: "price", reason: "a \(paymentMode.rawValue) offer needs a price above zero")
            }
            try price.validateChargeable(field: "price")
            try charge?.validateChargeable(field: "price")
        }
        if product.type == .subscription {
            guard duration != nil else { throw ValidationError(field: "duration", reason: "a subscription offer needs a duration such as P1M") }
            switch paymentMode {
            case .payUpFront:
                guard periods == 1 else { throw ValidationError(field: "periods", reason: "a pay_up_front offer has one period") }
            case .freeTrial, .payAsYouGo:
                guard (1...12).contains(periods) else { throw ValidationError(field: "periods", reason: "must be between 1 and 12") }
            }
        } else {
            guard duration == nil, periods == 1 else {
                throw ValidationError(field: "duration", reason: "only subscription offers have a duration and periods")
            }
            guard paymentMode != .payAsYouGo else {
                throw ValidationError(field: "payment_mode", reason: "a one-time product's offer is free_trial (free) or pay_up_front")
            }
            guard eligibility == .new else {
                throw ValidationError(field: "eligibility", reason: "a one-time product's offer is for customers who never bought it: [\"new\"]")
            }
        }
    }

    /// Whether the offer can be redeemed at `date`, before looking at codes or customers.
    public func availability(at date: Date) -> OfferRedemptionFailure? {
        if let endsAt, endsAt <= date { return .expired }
        if !isActive { return .inactive }
        if let startsAt, startsAt > date { return .inactive }
        return nil
    }
}

extension OfferEligibility: Codable {
    static let names: [(String, OfferEligibility)] = [("new", .new), ("existing", .existing), ("expired", .expired)]

    public var names: [String] { Self.names.filter { contains($0.1) }.map(\.0) }

    public init(names: [String]) throws(ValidationError) {
        var set: OfferEligibility = []
        for name in names {
            guard let match = Self.names.first(where: { $0.0 == name }) else {
                throw ValidationError(field: "eligibility", reason: "'\(name)' is not one of new, existing, expired")
            }
            set.insert(match.1)
        }
        self = set
    }

    public init(from decoder: any Decoder) throws {
        let names = try decoder.singleValueContainer().decode([String].self)
        do { try self.init(names: names) } catch { throw error }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(names)
    }
}
