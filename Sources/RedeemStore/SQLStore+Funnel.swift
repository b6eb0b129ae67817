import Foundation
import RedeemCore

extension SQLStore {
    /// Records that a purchase link started a checkout (a Stripe Checkout Session made, or the sandbox form shown).
    public func recordCheckoutStart(appID: String, productID: String, sandbox: Bool, now: Date) async throws {
        try await single { connection in
            try await connection.query(
                """
                INSERT INTO checkout_starts (id, app_id, product_id, sandbox, started_at)
                VALUES (\(Identifier.make(prefix: "cks")), \(appID), \(productID), \(sandbox), \(now))
                """)
        }
    }

    /// The app's funnel over the `days` days ending today (UTC). Every query is a range of one index keyed by app and
    /// time, grouped by day in SQL (purchases with revenue, links with their states, in one pass each); only the two
    /// percentiles sort, in the database.
    public func funnel(appID: String, days: Int, now: Date) async throws -> Funnel {
        let (from, to) = Funnel.window(days: days, now: now)
        return try await read { connection in
            var counts: [Date: Funnel.Day] = [:]
            func add(_ sql: SQL, _ apply: (inout Funnel.Day, SQLRow) throws -> Void) async throws {
                for row in try await connection.query(sql) {
                    let day = Date(timeIntervalSince1970: TimeInterval(try row.int("day")) * 86_400)
                    try apply(&counts[day, default: Funnel.Day(day: day)], row)
                }
            }
            try await add(
                """
                SELECT created_at / 86400000 AS day, COUNT(*) AS n FROM web_checkouts
                WHERE app_id = \(appID) AND created_at >= \(from) AND created_at < \(to) GROUP BY created_at / 86400000
                """
            ) { $0.checkouts += Int(try $1.int("n")) }
            try await add(
                """
                SELECT started_at / 86400000 AS day, COUNT(*) AS n FROM checkout_starts
                WHERE app_id = \(appID) AND started_at >= \(from) AND started_at < \(to) GROUP BY started_at / 86400000
                """
            ) { $0.checkouts += Int(try $1.int("n")) }
            // Purchases and revenue in one pass: per day and currency.
            var revenue: [String: Int64] = [:]
            try await add(
                """
                SELECT created_at / 86400000 AS day, price_currency, COUNT(*) AS n,
                    SUM(CASE WHEN store IN (\(Funnel.checkoutStores[0].rawValue), \(Funnel.checkoutStores[1].rawValue)) THEN 1 ELSE 0 END) AS checkout,
                    CAST(SUM(CASE WHEN refunded_at IS NULL THEN price_amount_micros ELSE 0 END) AS BIGINT) AS total
                FROM purchases
                WHERE app_id = \(appID) AND created_at >= \(from) AND created_at < \(to) AND store <> \(Store.promotional.rawValue)
                GROUP BY created_at / 86400000, price_currency
                """
            ) { day, row in
                let checkout = Int(try row.int("checkout"))
                day.purchases += checkout
                day.purchasesElsewhere += Int(try row.int("n")) - checkout
                if let currency = row.optionalString("price_currency"), let total = row.optionalInt("total"), total != 0 {
                    revenue[currency.uppercased(), default: 0] += total
                }
            }
            var expired = 0
            try await add(
                """
                SELECT created_at / 86400000 AS day, COUNT(*) AS issued, COUNT(opened_at) AS opened, COUNT(consumed_at) AS redeemed,
                    SUM(CASE WHEN consumed_at IS NULL AND expires_at <= \(now) THEN 1 ELSE 0 END) AS expired
                FROM redemption_tokens WHERE app_id = \(appID) AND created_at >= \(from) AND created_at < \(to)
                GROUP BY created_at / 86400000
                """
            ) { day, row in
                day.linksIssued = Int(try row.int("issued"))
                day.linksOpened = Int(try row.int("opened"))
                day.linksRedeemed = Int(try row.int("redeemed"))
                expired += Int(try row.int("expired"))
            }
            try await add(
                """
                SELECT created_at / 86400000 AS day, COUNT(*) AS n FROM offer_redemptions
                WHERE app_id = \(appID) AND created_at >= \(from) AND created_at < \(to) GROUP BY created_at / 86400000
                """
            ) { $0.offerRedemptions = Int(try $1.int("n")) }
            let emails = try await connection.first(
                """
                SELECT COUNT(*) AS n FROM email_outbox WHERE app_id = \(appID) AND kind = \(QueuedEmail.Kind.newLink.rawValue)
                    AND created_at >= \(from) AND created_at < \(to)
                """)
            // From purchase to redemption, for this window's redeemed links: the nearest-rank median and 90th percentile.
            let redeemed = counts.values.reduce(0) { $0 + $1.linksRedeemed }
            func percentile(_ fraction: Double) async throws -> TimeInterval? {
                guard redeemed > 0 else { return nil }
                let rank = Funnel.percentileRank(fraction, count: redeemed)
                return try await connection.first(
                    """
                    SELECT t.consumed_at - p.created_at AS waited FROM redemption_tokens t JOIN purchases p ON p.id = t.purchase_id
                    WHERE t.app_id = \(appID) AND t.created_at >= \(from) AND t.created_at < \(to) AND t.consumed_at IS NOT NULL
                    ORDER BY waited LIMIT 1 OFFSET \(rank)
                    """
                ).map { TimeInterval(try $0.int("waited")) / 1000 }
            }
            let linked = try await connection.first(
                """
                SELECT COUNT(DISTINCT purchase_id) AS n FROM redemption_tokens
                WHERE app_id = \(appID) AND created_at >= \(from) AND created_at < \(to)
                """)
            return Funnel(
                days: days, now: now, counts: counts, expiredUnused: expired,
                newLinkEmails: Int(try emails?.int("n") ?? 0), medianToRedeem: try await percentile(0.5), p90ToRedeem: try await percentile(0.9),
                revenue: revenue, purchasesSentALink: Int(try linked?.int("n") ?? 0))
        }
    }
}
