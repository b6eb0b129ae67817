import Foundation
import RedeemCore

extension SQLStore {
    /// Creates an offer; a subscription product takes at most `Offer.maxActivePerSubscription` active offers.
    public func createOffer(_ offer: Offer, audit: AuditEntry? = nil) async throws {
        try await write(audit: audit) { connection in
            guard let product = try await Self.products(appID: offer.appID, ids: [offer.productID], on: connection).first else {
                throw StoreError.notFound("product '\(offer.productID)'")
            }
            if offer.isActive { try await Self.requireRoomForActiveOffer(product, on: connection) }
            try await connection.query(
                """
                INSERT INTO offers (id, app_id, product_id, reference_name, payment_mode, duration, periods, price_amount_micros,
                    price_currency, eligibility, starts_at, ends_at, active, created_at)
                VALUES (\(offer.id), \(offer.appID), \(offer.productID), \(offer.referenceName), \(offer.paymentMode.rawValue),
                    \(offer.duration?.rawValue), \(offer.periods), \(offer.price?.amountMicros), \(offer.price?.currency),
                    \(offer.eligibility.names.joined(separator: ",")), \(offer.startsAt), \(offer.endsAt), \(offer.isActive),
                    \(offer.createdAt))
                """)
        }
    }

    public func offer(appID: String, id: String) async throws -> Offer {
        try await read { try await Self.offer(appID: appID, id: id, on: $0) }
    }

    /// An offer by its ID alone (IDs are unique across apps), for tools that name only the offer.
    public func offer(id: String) async throws -> Offer {
        try await read { connection in
            guard let row = try await connection.first("SELECT * FROM offers WHERE id = \(id)") else {
                throw StoreError.notFound("offer '\(id)'")
            }
            return try Offer(row: row)
        }
    }

    /// The app's offers, or one product's, oldest first.
    public func offers(appID: String, productID: String? = nil) async throws -> [Offer] {
        try await read { connection in
            try await Self.requireApp(appID, on: connection)
            let rows =
                if let productID {
                    try await connection.query("SELECT * FROM offers WHERE app_id = \(appID) AND product_id = \(productID) ORDER BY created_at, id")
                } else {
                    try await connection.query("SELECT * FROM offers WHERE app_id = \(appID) ORDER BY created_at, id")
                }
            return try rows.map(Offer.init(row:))
        }
    }

    /// Switches an offer on or off; switching on counts against the product's active-offer limit.
    public func setOfferActive(appID: String, id: String, active: Bool, audit: AuditEntry? = nil) async throws -> Offer {
        try await write(audit: audit) { connection in
            var offer = try await Self.offer(appID: appID, id: id, on: connection)
            guard offer.isActive != active else { return offer }
            if active, let product = try await Self.products(appID: appID, ids: [offer.productID], on: connection).first {
                try await Self.requireRoomForActiveOffer(product, on: connection)
            }
            try await connection.query("UPDATE offers SET active = \(active) WHERE app_id = \(appID) AND id = \(id)")
            offer.isActive = active
            return offer
        }
    }

    static func offer(appID: String, id: String, on connection: any SQLConnection) async throws -> Offer {
        guard let row = try await connection.first("SELECT * FROM offers WHERE app_id = \(appID) AND id = \(id)") else {
            throw StoreError.notFound("offer '\(id)'")
        }
        return try Offer(row: row)
    }

    /// Locks the product row (so two creations cannot both see nine) and counts its active offers.
    static func requireRoomForActiveOffer(_ product: Product, on connection: any SQLConnection) async throws {
        guard product.type == .subscription else { return }
        try await connection.query("UPDATE products SET type = type WHERE app_id = \(product.appID) AND id = \(product.id)")
        let count =
            try await connection.first(
                """
                SELECT COUNT(*) AS n FROM offers WHERE app_id = \(product.appID) AND product_id = \(product.id) AND active = 1
                """)?.int("n") ?? 0
        guard count < Offer.maxActivePerSubscription else {
            throw StoreError.conflict(
                "product '\(product.id)' already has \(Offer.maxActivePerSubscription) active offers; deactivate one first"
            )
        }
    }
}

extension Offer {
    init(row: SQLRow) throws {
        let eligibility = try OfferEligibility(names: (row.optionalString("eligibility") ?? "").split(separator: ",").map(String.init))
        self.init(
            id: try row.string("id"), appID: try row.string("app_id"), productID: try row.string("product_id"),
            referenceName: try row.string("reference_name"), paymentMode: try row.enumeration("payment_mode"),
            duration: row.optionalString("duration").flatMap(OfferDuration.init(rawValue:)), periods: Int(try row.int("periods")),
            price: row.price(micros: "price_amount_micros", currency: "price_currency"), eligibility: eligibility,
            startsAt: row.optionalDate("starts_at"), endsAt: row.optionalDate("ends_at"), isActive: try row.bool("active"),
            createdAt: try row.date("created_at")
        )
    }
}
