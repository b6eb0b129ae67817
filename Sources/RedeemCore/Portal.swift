import Foundation

/// The buyer's own portal (`/account/{app}`): who may sign in, for how long, and what each purchase offers there.
/// A buyer is known by the e-mail address their purchases carry; they prove it by a link sent to it.
public enum PortalRules {
    /// A sign-in link works once, within this time of being sent.
    public static let signInLinkLifetime: TimeInterval = 15 * 60
    /// A notice's button (`NoticeEmail`: a payment to fix, a subscription to resume) signs its buyer in once, within a
    /// week: a notice is acted on days later, unlike a link the buyer just asked for. After that it leads to the sign-in
    /// page, which sends a new one.
    public static let noticeLinkLifetime: TimeInterval = 7 * 86_400
    /// A portal session lasts this long from sign-in (the buyer signs in again with a new link after).
    public static let sessionLifetime: TimeInterval = 12 * 3600

    /// Addresses compare without case or surrounding blanks, as the console's search does.
    public static func normalizedEmail(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard trimmed.count <= 254, let at = trimmed.firstIndex(of: "@"), at != trimmed.startIndex,
            trimmed[trimmed.index(after: at)...].contains("."), !trimmed.contains(where: \.isWhitespace)
        else { return nil }
        return trimmed
    }

    /// What the buyer may do with one purchase, from the same rules the console and the admin API apply.
    public struct Actions: Equatable, Sendable {
        public var newLink: Bool
        public var cancel: Bool
        public var resume: Bool
        /// Payment method and invoices, in Stripe's Billing Portal.
        public var billing: Bool
        /// Another plan of its group, when there is one (`PlanChange.options`).
        public var changePlan: Bool

        public init(newLink: Bool, cancel: Bool, resume: Bool, billing: Bool, changePlan: Bool = false) {
            self.newLink = newLink
            self.cancel = cancel
            self.resume = resume
            self.billing = billing
            self.changePlan = changePlan
        }
    }

    public static func actions(_ purchase: Purchase, linksAllowed: Bool, now: Date) -> Actions {
        Actions(
            newLink: linksAllowed && purchase.isActive(at: now),
            cancel: (try? SupportRules.cancelAtPeriodEnd(purchase, now: now).get()) != nil,
            resume: (try? SupportRules.resume(purchase, now: now).get()) != nil,
            billing: purchase.store == .stripe && purchase.storeTransactionID.hasPrefix("sub_"),
            changePlan: (try? SupportRules.changePlan(purchase, now: now).get()) != nil
        )
    }

    /// Purchases a buyer manages here: those bought on the web and offer codes claimed there (not an operator's grants,
    /// not purchases recorded from elsewhere), refunded ones included, with what can still be done with them.
    public static func isManaged(_ purchase: Purchase) -> Bool {
        purchase.store == .rcBilling || purchase.store == .stripe || purchase.offer != nil
    }
}
