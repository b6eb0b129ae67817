import Foundation
import RedeemCore
import RedeemStore

/// An offer to create, as the admin API and the CLI take it.
public struct OfferInput: Codable, Hashable, Sendable {
    public var productID: String
    public var referenceName: String
    public var paymentMode: String
    public var duration: String?
    public var periods: Int?
    public var price: PriceInput?
    public var eligibility: [String]
    public var startsAt: Date?
    public var endsAt: Date?
    public var active: Bool?

    public init(
        productID: String, referenceName: String, paymentMode: String, duration: String? = nil, periods: Int? = nil,
        price: PriceInput? = nil, eligibility: [String], startsAt: Date? = nil, endsAt: Date? = nil, active: Bool? = nil
    ) {
        self.productID = productID
        self.referenceName = referenceName
        self.paymentMode = paymentMode
        self.duration = duration
        self.periods = periods
        self.price = price
        self.eligibility = eligibility
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.active = active
    }

    enum CodingKeys: String, CodingKey {
        case duration, periods, price, eligibility, active
        case productID = "product_id"
        case referenceName = "reference_name"
        case paymentMode = "payment_mode"
        case startsAt = "starts_at"
        case endsAt = "ends_at"
    }
}

/// A custom code to create.
public struct CustomCodeInput: Codable, Hashable, Sendable {
    public var offerID: String
    public var code: String
    public var maxRedemptions: Int
    public var expiresAt: Date?
    public var active: Bool?

    public init(offerID: String, code: String, maxRedemptions: Int, expiresAt: Date? = nil, active: Bool? = nil) {
        self.offerID = offerID
        self.code = code
        self.maxRedemptions = maxRedemptions
        self.expiresAt = expiresAt
        self.active = active
    }

    enum CodingKeys: String, CodingKey {
        case code, active
        case offerID = "offer_id"
        case maxRedemptions = "max_redemptions"
        case expiresAt = "expires_at"
    }
}

/// A new batch with its codes in plaintext: the only time they exist outside the buyer's hands.
public struct GeneratedCodeBatch: Sendable {
    public let batch: OfferCodeBatch
    /// Canonical codes (no dashes), in generation order.
    public let codes: [String]
}

extension AdminService {
    /// `id`: the offer's, when the request names it (a console form's own); else a new one.
    public func createOffer(appID: String, _ input: OfferInput, id: String? = nil) async throws -> Offer {
        let product = try await store.product(appID: appID, id: input.productID)
        guard let mode = OfferPaymentMode(rawValue: input.paymentMode) else {
            throw ValidationError(field: "payment_mode", reason: "must be one of free_trial, pay_as_you_go, pay_up_front")
        }
        let duration = try input.duration.map { raw throws(ValidationError) -> OfferDuration in
            guard let value = OfferDuration(rawValue: raw) else {
                throw ValidationError(field: "duration", reason: "must be one of P3D, P1W, P2W, P1M, P2M, P3M, P6M, P1Y")
            }
            return value
        }
        let offer = Offer(
            id: id ?? Identifier.make(prefix: "ofr"), appID: appID, productID: product.id, referenceName: input.referenceName,
            paymentMode: mode, duration: duration, periods: input.periods ?? 1, price: input.price?.price,
            eligibility: try OfferEligibility(names: input.eligibility), startsAt: input.startsAt, endsAt: input.endsAt,
            isActive: input.active ?? true, createdAt: clock.now()
        )
        try offer.validate(for: product)
        do {
            try await store.createOffer(offer, audit: try audit("offer.create", "offer", offer.id, appID: appID, detail: offer.referenceName))
        } catch let error as StoreError where error.isConflict && error.description.hasPrefix("already exists") {
            throw StoreError.conflict("the app already has an offer named '\(offer.referenceName)'")
        }
        return offer
    }

    public func setOfferActive(appID: String, id: String, active: Bool) async throws -> Offer {
        try await store.setOfferActive(
            appID: appID, id: id, active: active, audit: try audit(active ? "offer.activate" : "offer.deactivate", "offer", id, appID: appID))
    }

    /// Generates `count` one-time codes for an offer, writes them to `output` and stores their hashes, a chunk of
    /// `chunkSize` at a time so that memory holds a chunk, not the batch: each chunk is drawn, written, hashed and kept
    /// as a sorted run of digests in a temporary file; once every code is written (and `output` has made them safe), the
    /// runs are merged into the store in ascending order, in one transaction with the audit entry. When writing throws,
    /// nothing is stored. `progress` hears "generated" and "stored" with a count.
    @discardableResult
    public func generateCodes(
        appID: String, offerID: String, count: Int, length: Int = 16, expiresAt: Date, chunkSize: Int = 50_000,
        into output: some CodeBatchOutput, progress: @escaping @Sendable (_ phase: String, _ done: Int) -> Void = { _, _ in }
    ) async throws -> OfferCodeBatch {
        let now = clock.now()
        try OfferCodeBatch.validate(count: count, expiresAt: expiresAt, now: now)
        guard OfferCode.lengths.contains(length) else { throw ValidationError(field: "length", reason: "must be 16, 17 or 18") }
        _ = try await store.offer(appID: appID, id: offerID)
        let batch = OfferCodeBatch(
            id: Identifier.make(prefix: "batch"), appID: appID, offerID: offerID, count: count, expiresAt: expiresAt, createdAt: now)
        let chunkSize = max(1, chunkSize)
        for attempt in 1...2 {
            // The store takes smaller chunks than are drawn: two are in memory at a time (one read, one written).
            let runs = try SortedDigestRuns(chunkSize: min(chunkSize, 10_000))
            defer { runs.remove() }
            try output.start(batch)
            // The next two chunks are drawn, hashed and sorted while this one is written: two cores kept busy.
            let draw = { @Sendable (size: Int) -> (OfferCodeChunk, [CodeDigest]) in
                var rng = BufferedSystemRandom()
                let chunk = OfferCodeChunk(count: size, length: length, using: &rng)
                return (chunk, CodeDigest.sorted(chunk.digests()))
            }
            var drawing: [Task<(OfferCodeChunk, [CodeDigest]), Never>] = []
            var asked = 0
            func drawNext() {
                guard asked < count else { return }
                let size = min(chunkSize, count - asked)
                asked += size
                drawing.append(Task { draw(size) })
            }
            defer { for task in drawing { task.cancel() } }
            drawNext()
            drawNext()
            var done = 0
            while !drawing.isEmpty {
                let (chunk, digests) = await drawing.removeFirst().value
                drawNext()
                done += chunk.count
                try output.write(chunk)
                try runs.append(sorted: digests)
                progress("generated", done)
            }
            try output.finish()
            do {
                let audit = try audit("code_batch.create", "code_batch", batch.id, appID: appID, detail: "\(count) codes for \(offerID)")
                try await store.createCodeBatch(batch, hashes: runs, audit: audit) { progress("stored", $0) }
                return batch
            } catch let error as StoreError where error.isConflict && attempt == 1 {
                continue  // A code collided (about 1 in 10^12 per million): draw the whole batch again.
            }
        }
        throw StoreError.conflict("could not draw unique codes")
    }

    /// Generates a batch as `generateCodes(…into:…)` does, keeping its codes in memory (the admin API answers with them).
    public func generateCodes(
        appID: String, offerID: String, count: Int, length: Int = 16, expiresAt: Date,
        progress: @escaping @Sendable (_ phase: String, _ done: Int) -> Void = { _, _ in }
    ) async throws -> GeneratedCodeBatch {
        let list = CodeList()
        let batch = try await generateCodes(
            appID: appID, offerID: offerID, count: count, length: length, expiresAt: expiresAt, into: list, progress: progress)
        return GeneratedCodeBatch(batch: batch, codes: list.codes)
    }

    public func setCodeBatchActive(appID: String, id: String, active: Bool) async throws -> OfferCodeBatch {
        try await store.setCodeBatchActive(
            appID: appID, id: id, active: active,
            audit: try audit(active ? "code_batch.activate" : "code_batch.deactivate", "code_batch", id, appID: appID))
    }

    /// `id`: the code's, when the request names it (a console form's own); else a new one.
    public func createCustomCode(appID: String, _ input: CustomCodeInput, id: String? = nil) async throws -> CustomOfferCode {
        guard let code = OfferCode.normalizeCustom(input.code) else {
            throw ValidationError(field: "code", reason: "must be 4–30 letters or digits (spaces and dashes are ignored)")
        }
        guard (1...CustomOfferCode.maxCap).contains(input.maxRedemptions) else {
            throw ValidationError(field: "max_redemptions", reason: "must be between 1 and \(CustomOfferCode.maxCap)")
        }
        let now = clock.now()
        if let expires = input.expiresAt, expires <= now {
            throw ValidationError(field: "expires_at", reason: "must be in the future")
        }
        let custom = CustomOfferCode(
            id: id ?? Identifier.make(prefix: "cc"), appID: appID, offerID: input.offerID, code: code, maxRedemptions: input.maxRedemptions,
            expiresAt: input.expiresAt, isActive: input.active ?? true, createdAt: now
        )
        try await store.createCustomCode(custom, audit: try audit("custom_code.create", "custom_code", custom.id, appID: appID))
        return custom
    }

    public func setCustomCodeActive(appID: String, id: String, active: Bool) async throws -> CustomOfferCode {
        try await store.setCustomCodeActive(
            appID: appID, id: id, active: active,
            audit: try audit(active ? "custom_code.activate" : "custom_code.deactivate", "custom_code", id, appID: appID))
    }

    /// The redemption report as CSV: a header line, then one line per redemption.
    public func offerRedemptionReport(appID: String, offerID: String?) async throws -> String {
        let records = try await store.offerRedemptions(appID: appID, offerID: offerID)
        return ([OfferRedemptionRecord.csvHeader] + records.map(\.csvLine)).joined(separator: "\n") + "\n"
    }
}

extension GeneratedCodeBatch {
    /// The batch as CSV, one grouped code per line, with its redemption URL when the public URL is known.
    public func csv(publicURL: URL?) -> String {
        var out = publicURL == nil ? "code\n" : "code,redemption_url\n"
        out.reserveCapacity(codes.count * (publicURL == nil ? 20 : 120))
        let base = publicURL.map { OfferCodeLinks.redeemPageBase(publicURL: $0, appID: batch.appID) }
        for code in codes {
            out += OfferCode.grouped(code)
            if let base { out += "," + base + code }
            out += "\n"
        }
        return out
    }
}

/// Where a code is redeemed on the web: Apple's URL shape on Redeem's host.
public enum OfferCodeLinks {
    /// `https://host/redeem?ctx=offercodes&id=<app>&code=` (the code is appended); `/sandbox/redeem` for sandbox.
    public static func redeemPageBase(publicURL: URL, appID: String, sandbox: Bool = false) -> String {
        publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + redeemPagePath(appID: appID, sandbox: sandbox)
    }

    /// `/redeem?ctx=offercodes&id=<app>&code=` (or `/sandbox/redeem…`), on this host.
    public static func redeemPagePath(appID: String, sandbox: Bool) -> String {
        "\(sandbox ? "/sandbox" : "")/redeem?ctx=offercodes&id=\(encode(appID))&code="
    }

    /// The page where `claimant` pays for a paid offer's `code`: the sandbox page for a sandbox key (error 7868).
    public static func paymentPage(publicURL: URL, appID: String, code: String, claimant: String, sandbox: Bool) -> String {
        redeemPageBase(publicURL: publicURL, appID: appID, sandbox: sandbox) + code + "&app_user_id=" + encode(claimant)
    }

    static func encode(_ text: String) -> String { PercentEncoding.component(text) }
}
