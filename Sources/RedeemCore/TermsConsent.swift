import Foundation

/// A buyer's affirmative consent to the app's terms at checkout: the box ticked (Redeem's sandbox checkout) or Stripe
/// Checkout's own consent box, when the app requires consent (`App.requireTermsConsent`). Kept with the purchase, with
/// the terms' address at the time, as proof: California's automatic-renewal law asks a seller to keep it, and it
/// answers a chargeback that says the buyer never agreed.
public struct TermsConsent: Codable, Hashable, Sendable {
    public var acceptedAt: Date
    public var termsURL: String

    public init(acceptedAt: Date, termsURL: String) {
        self.acceptedAt = acceptedAt
        self.termsURL = termsURL
    }

    /// The consent a checkout records: only where the app asks for a box ticked, and it was.
    public static func given(app: App, ticked: Bool, at date: Date) -> TermsConsent? {
        guard app.requireTermsConsent, ticked, let terms = app.termsURL else { return nil }
        return TermsConsent(acceptedAt: date, termsURL: terms)
    }

    enum CodingKeys: String, CodingKey {
        case acceptedAt = "accepted_at"
        case termsURL = "terms_url"
    }
}
