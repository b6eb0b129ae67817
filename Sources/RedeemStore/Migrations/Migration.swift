/// One versioned schema change. Once applied anywhere, a migration's SQL is never edited:
/// the runner stores a checksum and refuses to start when it changes.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    let statements: [String]
    /// Engine-specific replacements, where the portable SQL is not enough.
    let postgres: [String]?

    init(_ version: Int, _ name: String, _ statements: [String], postgres: [String]? = nil) {
        self.version = version
        self.name = name
        self.statements = statements
        self.postgres = postgres
    }

    func statements(for engine: SQLEngine) -> [String] {
        engine == .postgres ? (postgres ?? statements) : statements
    }

    /// FNV-1a over the statements, stable across runs and platforms.
    func checksum(for engine: SQLEngine) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in statements(for: engine).joined(separator: ";\n").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

extension Migration {
    /// Every migration, in order. Append only.
    public static let all: [Migration] = [
        v001Foundation, v002RedemptionTokens, v003EmailOutbox, v004Checkout, v005Webhooks, v006StoreEvents, v007CheckoutReference, v008WebCheckouts,
        v009SandboxRenewals, v010OfferCodes, v011KeyLabels, v012Console, v013Support, v014KeyUse, v015Portal, v016CheckoutOptions,
        v017CustomerInfoVersions, v018StatementAssert, v019QuotaStripes, v020NoJIT, v021CustomCodeStripes, v022OfferClaimsByEmail, v023RevenueCatSDKs,
        v024ReturnLinks, v025Team, v026ProductPrices, v027Branding, v028CustomerActivity, v029TrialEnds, v030CompactOfferCodes,
        v031CustomerVersionAnnouncements, v032CustomerKeyedIndexes, v033OfferingOverrides, v034CancellationFeedback, v035ErasedCustomers,
        v036BuyerLanguages, v037AppNamesOnOneLine, v038LegalLinks, v039StripeTaxCodes, v040TermsConsent, v041RenewalReminders,
        v042PlanChanges, v043ScheduledPlans, v044Disputes, v045PaymentReferences, v046TermsConsentRecords,
    ]
}
