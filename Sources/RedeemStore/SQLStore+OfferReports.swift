import Foundation
import RedeemCore

/// How much of the quarterly quota an app has used, and each offer's redemptions.
public struct OfferCodeUsage: Codable, Hashable, Sendable {
    public struct PerOffer: Codable, Hashable, Sendable {
        public let offerID: String
        public let referenceName: String
        public let redemptions: Int

        enum CodingKeys: String, CodingKey {
            case redemptions
            case offerID = "offer_id"
            case referenceName = "reference_name"
        }
    }

    public let quarter: String
    public let quota: Int
    public let used: Int
    public let offers: [PerOffer]
}

extension SQLStore {
    public func offerCodeUsage(appID: String, now: Date) async throws -> OfferCodeUsage {
        try await read { connection in
            guard let app = try await connection.first("SELECT offer_code_quota_per_quarter AS q FROM apps WHERE id = \(appID)") else {
                throw StoreError.notFound("app '\(appID)'")
            }
            let quarter = OfferQuota.quarter(of: now)
            let used =
                try await connection.first(
                    """
                    SELECT CAST(COALESCE(SUM(used), 0) AS BIGINT) AS used FROM offer_quota_stripes
                    WHERE app_id = \(appID) AND quarter = \(quarter)
                    """)?.int("used") ?? 0
            let offers = try await connection.query(
                """
                SELECT o.id, o.reference_name, (SELECT COUNT(*) FROM offer_redemptions r WHERE r.offer_id = o.id) AS n
                FROM offers o WHERE o.app_id = \(appID) ORDER BY o.created_at, o.id
                """
            ).map { row in
                OfferCodeUsage.PerOffer(
                    offerID: try row.string("id"), referenceName: try row.string("reference_name"), redemptions: Int(try row.int("n")))
            }
            return OfferCodeUsage(quarter: quarter, quota: Int(try app.int("q")), used: Int(used), offers: offers)
        }
    }

    /// Every redemption of the app's codes (or one offer's), oldest first.
    public func offerRedemptions(appID: String, offerID: String? = nil) async throws -> [OfferRedemptionRecord] {
        try await read { connection in
            try await Self.requireApp(appID, on: connection)
            var sql: SQL = """
                SELECT r.*, o.reference_name, cc.code AS custom_code FROM offer_redemptions r
                JOIN offers o ON o.id = r.offer_id
                LEFT JOIN offer_custom_codes cc ON cc.id = r.custom_code_id
                WHERE r.app_id = \(appID)
                """
            if let offerID {
                sql.binds.append(.text(offerID))
                sql.text += " AND r.offer_id = $\(sql.binds.count)"
            }
            sql.text += " ORDER BY r.created_at, r.id"
            return try await connection.query(sql).map { row in
                OfferRedemptionRecord(
                    id: try row.string("id"), offerID: try row.string("offer_id"), referenceName: try row.string("reference_name"),
                    appUserID: try row.string("app_user_id"), customerID: try row.string("customer_id"),
                    codeType: try row.string("code_type"), customCode: row.optionalString("custom_code"),
                    batchID: row.optionalString("batch_id"), purchaseID: row.optionalString("purchase_id"),
                    channel: try row.string("channel"), createdAt: try row.date("created_at")
                )
            }
        }
    }
}

extension OfferRedemptionRecord {
    public static let csvHeader = "redeemed_at,app_user_id,customer_id,code_type,custom_code,offer_id,offer_reference_name,channel,purchase_id"

    /// One CSV line (RFC 4180 quoting).
    public var csvLine: String {
        [ISODate.format(createdAt), appUserID, customerID, codeType, customCode ?? "", offerID, referenceName, channel, purchaseID ?? ""]
            .map(Self.csvField).joined(separator: ",")
    }

    static func csvField(_ value: String) -> String {
        // A leading = + - @ would run as a formula in a spreadsheet: a quote mark keeps it text.
        let text = value.first.map { "=+-@".contains($0) } == true ? "'" + value : value
        guard text.contains(where: { ",\"\n\r".contains($0) }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
