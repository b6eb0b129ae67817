import Foundation

/// Offer codes as buyers type them: 16–18 characters from an alphabet without look-alikes (no 0/O, 1/I/L),
/// shown in groups of four, matched without regard to case, spaces or dashes.
public enum OfferCode {
    /// 31 symbols: A–Z and 2–9 without I, L, O, 0 and 1.
    public static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    public static let lengths = 16...18

    /// A new one-time code from the system CSPRNG (16 symbols carry about 79 bits).
    public static func generate(length: Int = 16) -> String {
        var rng = SystemRandomNumberGenerator()
        return generate(length: length, using: &rng)
    }

    public static func generate<R: RandomNumberGenerator>(length: Int, using rng: inout R) -> String {
        precondition(lengths.contains(length), "offer codes are 16–18 characters")
        return String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] })
    }

    /// `count` new codes, fast: every random byte below 248 (8 × 31) picks a symbol, so each is uniform.
    public static func generate(count: Int, length: Int = 16) -> [String] {
        var rng = SystemRandomNumberGenerator()
        return generate(count: count, length: length, using: &rng)
    }

    public static func generate<R: RandomNumberGenerator>(count: Int, length: Int, using rng: inout R) -> [String] {
        OfferCodeChunk(count: count, length: length, using: &rng).codes
    }

    /// The canonical form of what a buyer typed, or nil when it cannot be a one-time code.
    public static func normalize(_ typed: String) -> String? {
        let symbols = typed.uppercased().filter { $0 != " " && $0 != "-" }
        guard lengths.contains(symbols.count), symbols.allSatisfy(alphabet.contains) else { return nil }
        return symbols
    }

    /// `ABCD-EFGH-JKMN-PQRS` (the last group may be shorter or longer by up to two).
    public static func grouped(_ code: String) -> String {
        var groups: [String] = []
        var rest = Substring(code)
        while rest.count > 4 {
            groups.append(String(rest.prefix(4)))
            rest = rest.dropFirst(4)
        }
        if rest.count <= 2, var last = groups.popLast() {
            last += rest
            groups.append(last)
        } else {
            groups.append(String(rest))
        }
        return groups.joined(separator: "-")
    }

    /// Custom codes (`SUMMER25`): 4–30 letters or digits, compared without regard to case.
    public static func normalizeCustom(_ typed: String) -> String? {
        let symbols = typed.uppercased().filter { $0 != " " && $0 != "-" }
        guard (4...30).contains(symbols.count), symbols.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        return symbols
    }
}

/// Who may redeem an offer, modelled on App Store offer codes.
public struct OfferEligibility: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Never subscribed to the product's group (for one-time products: never bought it).
    public static let new = OfferEligibility(rawValue: 1)
    /// Subscribed now.
    public static let existing = OfferEligibility(rawValue: 2)
    /// Subscribed before, lapsed now.
    public static let expired = OfferEligibility(rawValue: 4)

    /// What the customer is for this offer's product.
    public enum Standing: Sendable, Equatable {
        case new, existing, expired
    }

    /// The customer's standing from their purchases of the product (or its group) at `date`.
    public static func standing(purchases: [Purchase], at date: Date) -> Standing {
        let counted = purchases.filter { $0.refundedAt == nil }
        if counted.isEmpty { return .new }
        return counted.contains { $0.isActive(at: date) } ? .existing : .expired
    }

    public func allows(_ standing: Standing) -> Bool {
        switch standing {
        case .new: contains(.new)
        case .existing: contains(.existing)
        case .expired: contains(.expired)
        }
    }
}

/// The calendar quarter a redemption counts against, e.g. `2026-Q4` (UTC). Its count is a `StripedCount`.
public enum OfferQuota {
    public static let defaultPerQuarter = 1_000_000

    public static func quarter(of date: Date) -> String {
        let components = ISO8601Period.calendar.dateComponents([.year, .month], from: date)
        return "\(components.year!)-Q\((components.month! - 1) / 3 + 1)"
    }
}
