/// A count kept in several rows (stripes), summed on read, so concurrent increments rarely wait for each other, and
/// still exact against a limit: each stripe has a budget, the budgets add up to the limit, and an increment is refused
/// only when every stripe is at its budget. Used for the quarterly offer-code quota and a custom code's uses.
public enum StripedCount {
    public static let stripes = 16

    /// How many increments stripe `stripe` may count: the limit shared out so the budgets add up to it exactly.
    public static func budget(limit: Int, stripe: Int) -> Int {
        guard (0..<stripes).contains(stripe) else { return 0 }
        let share = share(limit: limit)
        return share.each + (stripe < share.oneMoreBelow ? 1 : 0)
    }

    /// The budgets as two numbers: `each` for every stripe, one more for the stripes below `oneMoreBelow` (so a
    /// statement can test a stripe's budget without a row per stripe).
    public static func share(limit: Int) -> (each: Int, oneMoreBelow: Int) {
        guard limit > 0 else { return (0, 0) }
        return (limit / stripes, limit % stripes)
    }

    /// `total` laid out over the stripes for `limit`, each stripe at most at its budget, the overflow (a limit lowered
    /// below what was used) on stripe 0. A count rewritten so keeps "a stripe with room exists" the same as "fewer
    /// than `limit` used".
    public static func layout(total: Int, limit: Int) -> [Int] {
        var remaining = max(0, total)
        var used = (0..<stripes).map { stripe in
            let taken = min(remaining, budget(limit: limit, stripe: stripe))
            remaining -= taken
            return taken
        }
        used[0] += remaining
        return used
    }

    /// The stripes with a budget, in the order an increment tries them: `first` (random, so concurrent ones spread
    /// out), then the others.
    public static func tryOrder(limit: Int, first: Int) -> [Int] {
        let usable = (0..<stripes).filter { budget(limit: limit, stripe: $0) > 0 }
        guard !usable.isEmpty else { return [] }
        let start = usable.firstIndex(of: first) ?? 0
        return Array(usable[start...] + usable[..<start])
    }

    /// The first stripe in `tryOrder` that had room when `used` (stripe → count) was read; a stripe not read has none.
    public static func withRoom(limit: Int, used: [Int: Int], first: Int) -> Int? {
        tryOrder(limit: limit, first: first).first { (used[$0] ?? .max) < budget(limit: limit, stripe: $0) }
    }
}
