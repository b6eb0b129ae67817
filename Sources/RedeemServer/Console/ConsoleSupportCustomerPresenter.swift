import Foundation
import RedeemCore
import RedeemStore

/// The Customers pages' values: the list of recent customers, and one customer with their history as feed entries
/// that Core's `CustomerFeed` orders, pages and folds.
enum CustomerPresenter {
    /// Attributes shown at the top, by key, in this order.
    static let keyAttributes: [(key: String, label: String)] = [
        ("$displayName", "Name"), ("$phoneNumber", "Phone"), ("$mediaSource", "Media source"), ("$campaign", "Campaign"),
    ]

    static func page(
        _ view: ConsoleService.PersonView, appID: String, seesEmails: Bool, before: CustomerFeed.Cursor?
    ) -> CustomerPage {
        let facts = view.facts
        let now = view.now
        func show(_ email: String) -> String { seesEmails ? email : EmailMasking.mask(email) }
        // A product by its name; a grant's (`rc_promo_pro_monthly`, nameless) by the entitlement it gives.
        func productName(_ id: String) -> String {
            view.productNames[id] ?? PromotionalGrant.entitlement(productID: id).map { "\($0) entitlement" } ?? id
        }
        let entitlements = view.info.subscriber.entitlements.sorted { $0.key < $1.key }.map { id, entitlement in
            let expires = entitlement.expiresDate.flatMap(ISODate.parse)
            let grace = entitlement.gracePeriodExpiresDate.flatMap(ISODate.parse)
            return CustomerPage.Entitlement(
                id: id, product: productName(entitlement.productIdentifier),
                active: AccessFacts(expiresDate: expires, gracePeriodExpiresDate: grace).isActive(at: now),
                expires: expires.map { ConsolePresenter.date($0) } ?? "never (lifetime)")
        }
        // The person first: the address the app set ($email), else the latest one a purchase was made with.
        let email =
            facts.attributes.first { $0.key == "$email" && !$0.value.isEmpty }?.value
            ?? facts.purchases.reversed().lazy.compactMap(\.email).first
        var keyFacts: [CustomerPage.Fact] = []
        for (key, label) in keyAttributes {
            guard let value = facts.attributes.first(where: { $0.key == key && !$0.value.isEmpty })?.value else { continue }
            if key == "$phoneNumber" && !seesEmails { continue }
            keyFacts.append(CustomerPage.Fact(label: label, value: value))
        }
        if let chosen = facts.offeringOverride {
            let when = ConsolePresenter.date(chosen.setAt)
            keyFacts.append(CustomerPage.Fact(label: "Current offering", value: "\(chosen.offeringID) (chosen on \(when))"))
        }
        for attribute in facts.attributes where !attribute.key.hasPrefix("$") && keyFacts.count < 6 {
            keyFacts.append(CustomerPage.Fact(label: attribute.key, value: attribute.value))
        }
        let name = { (purchase: Purchase) in productName(purchase.productID) }
        let feed = CustomerFeed.page(
            entries(facts, appID: appID, productName: name, show: show), purchases: facts.purchases.map { ($0.id, $0.purchaseDate) },
            before: before)
        let rows = Dictionary(
            uniqueKeysWithValues: facts.purchases.map {
                var row = purchase($0, now: now, productName: name($0), stripeOn: view.stripeOn, mailOn: view.mailOn, show: show)
                // Through Stripe only when Stripe is configured, as every action that goes through it.
                if view.stripeOn || $0.store != .stripe {
                    row.plans = (view.plans[$0.id] ?? []).map { Choice(value: $0.product.id, label: planLabel($0)) }
                    row.switchable = !row.plans.isEmpty
                }
                row.scheduledPlan = $0.scheduledPlan.map { "\(productName($0.productID)) (\($0.productID))" }
                return ($0.id, row)
            })
        let base = ConsolePresenter.customerURL(appID: appID, customerID: facts.customer.id)
        var page = CustomerPage(
            customer: CustomerPage.Person(
                id: facts.customer.id, appUserID: facts.customer.originalAppUserID, email: email.map(show), masked: !seesEmails,
                anonymous: facts.customer.originalAppUserID.hasPrefix("$RCAnonymousID:"), firstSeen: ConsolePresenter.date(facts.customer.firstSeen),
                lastSeen: ConsolePresenter.date(facts.customer.lastSeen)),
            aliases: facts.customer.aliases.filter { $0 != facts.customer.originalAppUserID },
            keyAttributes: keyFacts,
            attributes: facts.attributes.map(ConsolePresenter.attribute).map { seesEmails || $0.key != "$email" ? $0 : masked($0) },
            entitlements: entitlements.filter(\.active), lapsedEntitlements: entitlements.filter { !$0.active },
            openPurchases: feed.openPurchaseIDs.compactMap { rows[$0] }, foldedPurchases: feed.foldedPurchaseIDs.compactMap { rows[$0] },
            noPurchases: facts.purchases.isEmpty,
            feed: feed.entries.map(entry),
            grantEntitlements: view.entitlementIDs, mayGrant: !view.entitlementIDs.isEmpty,
            durations: PromotionalDuration.allCases.map {
                Choice(value: $0.rawValue, label: $0.rawValue.replacingOccurrences(of: "_", with: " "))
            },
            offeringChoices: offeringChoices(view.offerings, products: view.products, chosen: facts.offeringOverride?.offeringID))
        if let older = feed.older { page.older = base + "?before=" + older.text + "#history" }
        if before != nil { page.newest = base + "#history" }
        return page
    }

    /// The app's own current offering (the empty value), then each offering, naming the stores whose SDKs are not shown
    /// it (they keep the app's own); none when the app has no offering.
    static func offeringChoices(_ offerings: [Offering], products: [Product], chosen: String?) -> [Choice] {
        guard !offerings.isEmpty else { return [] }
        let byID = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let own = offerings.first(where: \.isCurrent).map { "The app's current offering (\($0.id))" } ?? "The app's current offering (none)"
        return [Choice(value: "", label: own, selected: chosen == nil)]
            + offerings.map { offering in
                let missing = [("iOS", StorePlatform.appStore), ("Android", .playStore)].filter {
                    !OfferingsDocument.isShown(offering, products: byID, on: $0.1)
                }
                let label = missing.isEmpty ? offering.id : "\(offering.id) (not on \(missing.map(\.0).joined(separator: " or ")))"
                return Choice(value: offering.id, label: label, selected: offering.id == chosen)
            }
    }

    static func masked(_ attribute: CustomerPage.Attribute) -> CustomerPage.Attribute {
        CustomerPage.Attribute(
            key: attribute.key, value: EmailMasking.mask(attribute.value), updated: attribute.updated, source: attribute.source,
            trusted: attribute.trusted, use: attribute.use)
    }

    static func entry(_ entry: CustomerFeedEntry) -> CustomerPage.Entry {
        CustomerPage.Entry(
            at: ConsolePresenter.date(entry.at), kind: entry.kind.rawValue, summary: entry.summary, detail: entry.detail, link: entry.link,
            problem: entry.problem, retryEmailID: entry.kind == .email && entry.problem ? String(entry.id.dropFirst(2)) : nil)
    }

    /// Every fact about the customer as a feed entry, in no particular order (Core's `CustomerFeed` orders them).
    static func entries(
        _ facts: CustomerFacts, appID: String, productName: (Purchase) -> String, show: (String) -> String
    ) -> [CustomerFeedEntry] {
        var out: [CustomerFeedEntry] = []
        let byID = Dictionary(uniqueKeysWithValues: facts.purchases.map { ($0.id, $0) })
        let byTransaction = Dictionary(facts.purchases.map { ($0.storeTransactionID, $0) }, uniquingKeysWith: { a, _ in a })
        let anchor = { (id: String) in "#purchase-\(id)" }
        let switches = Dictionary(grouping: facts.planChanges, by: \.purchaseID)
        // A product by its ID, named as the purchase of it would be.
        func named(_ purchase: Purchase, _ productID: String) -> String {
            var other = purchase
            other.productID = productID
            return productName(other)
        }
        // The product a purchase was at `date`: the one its first later switch left, else the one it is now.
        func product(of purchase: Purchase, at date: Date) -> String {
            named(purchase, switches[purchase.id]?.first { $0.at > date }?.fromProductID ?? purchase.productID)
        }
        for p in facts.purchases {
            let product = productName(p)
            let how = p.store == .promotional ? "Granted" : p.isSandbox ? "Bought (sandbox)" : "Bought"
            // What was bought: the plan before its first switch, if it switched.
            let first = switches[p.id]?.first
            let bought = first.map { named(p, $0.fromProductID) } ?? product
            let paid = first.map(\.fromPrice) ?? p.price
            let detail = [paid.map(PriceFormat.string), ConsolePresenter.store(p.store, sandbox: p.isSandbox)].compactMap { $0 }
            out.append(
                CustomerFeedEntry(
                    at: p.purchaseDate, kind: .purchase, id: "p:\(p.id)", purchaseID: p.id, summary: "\(how) \(bought)",
                    detail: detail.joined(separator: " · "), link: anchor(p.id)))
            for (index, change) in (switches[p.id] ?? []).enumerated() {
                out.append(
                    CustomerFeedEntry(
                        at: change.at, kind: .purchase, id: "x:\(p.id):\(index)", purchaseID: p.id,
                        summary: "Plan changed to \(named(p, change.toProductID))", detail: "from \(named(p, change.fromProductID))",
                        link: anchor(p.id)))
            }
            if let dispute = p.dispute {
                // A chargeback that ended it stands in for the refund entry; an inquiry only asks.
                let summary =
                    dispute.endedAccessAt != nil
                    ? "Charged back \(product): the buyer’s bank took the payment back"
                    : dispute.isChargeback ? "Charged back \(product) after its refund" : "Bank inquiry about \(product)"
                out.append(
                    CustomerFeedEntry(
                        at: dispute.endedAccessAt ?? dispute.openedAt, kind: .refund, id: "d:\(p.id)", purchaseID: p.id, summary: summary,
                        detail: Self.disputeDetail(dispute), link: anchor(p.id), problem: true))
            }
            if let at = p.refundedAt, p.dispute?.endedAccessAt == nil {
                out.append(
                    CustomerFeedEntry(
                        at: at, kind: .refund, id: "r:\(p.id)", purchaseID: p.id, summary: "Refunded \(product)", link: anchor(p.id), problem: true))
            }
            if let at = PromotionalGrant.revokedAt(p) {
                out.append(
                    CustomerFeedEntry(
                        at: at, kind: .cancellation, id: "c:\(p.id)", purchaseID: p.id, summary: "Revoked \(product)", link: anchor(p.id)))
            } else if let at = p.unsubscribeDetectedAt {
                out.append(
                    CustomerFeedEntry(
                        at: at, kind: .cancellation, id: "c:\(p.id)", purchaseID: p.id, summary: "Renewal of \(product) turned off",
                        detail: Self.cancellationDetail(p), link: anchor(p.id)))
            }
            if let at = p.billingIssuesDetectedAt {
                out.append(
                    CustomerFeedEntry(
                        at: at, kind: .renewal, id: "b:\(p.id)", purchaseID: p.id, summary: "Billing issue on \(product)", link: anchor(p.id),
                        problem: true))
            }
        }
        for (index, link) in facts.links.enumerated() {
            let purchase = byID[link.purchaseID]
            let issued = purchase.map { product(of: $0, at: link.link.createdAt) } ?? link.purchaseID
            out.append(
                CustomerFeedEntry(
                    at: link.link.createdAt, kind: .linkIssued, id: "l:\(link.purchaseID):\(index)", purchaseID: link.purchaseID,
                    summary: "Redemption link issued", detail: "\(issued) · expires \(ConsolePresenter.date(link.link.expiresAt))",
                    link: anchor(link.purchaseID)))
            if let at = link.link.redeemedAt {
                let redeemed = purchase.map { product(of: $0, at: at) } ?? link.purchaseID
                out.append(
                    CustomerFeedEntry(
                        at: at, kind: .linkRedeemed, id: "k:\(link.purchaseID):\(index)", purchaseID: link.purchaseID,
                        summary: "Link redeemed", detail: "\(redeemed) · by \(link.link.redeemedBy ?? "unknown")", link: anchor(link.purchaseID)))
            }
        }
        for attempt in facts.attempts {
            let redeemed = attempt.attempt.outcome == "redeemed"
            let product = attempt.purchaseID.flatMap { byID[$0] }.map { product(of: $0, at: attempt.attempt.createdAt) }
            out.append(
                CustomerFeedEntry(
                    at: attempt.attempt.createdAt, kind: .attempt, id: "a:\(attempt.attempt.id)", purchaseID: attempt.purchaseID,
                    summary: redeemed
                        ? "Redemption attempt: redeemed" : "Redemption attempt refused: \(ConsolePresenter.outcome(attempt.attempt.outcome))",
                    detail: ([product].compactMap { $0 } + ["by \(attempt.attempt.appUserID)"]).joined(separator: " · "),
                    link: attempt.purchaseID.flatMap { byID[$0] != nil ? anchor($0) : nil }, problem: !redeemed))
        }
        for sent in facts.emails {
            let state = SentEmail((sent.email, sent.sentAt, sent.failedAt, sent.lastError)).state
            let retryable = sent.sentAt == nil && sent.email.attempts > 0
            out.append(
                CustomerFeedEntry(
                    at: sent.sentAt ?? sent.email.createdAt, kind: .email, id: "e:\(sent.email.id)", purchaseID: sent.email.purchaseID,
                    summary: "E-mail (\(sent.email.kind.label)) \(state)",
                    detail: (["to \(show(sent.email.recipient))"] + [sent.lastError].compactMap { $0 }).joined(separator: " · "),
                    link: anchor(sent.email.purchaseID), problem: retryable))
        }
        // One entry per event, however many endpoints it went to.
        var events: [String: [CustomerFacts.Webhook]] = [:]
        for webhook in facts.webhooks { events[webhook.delivery.eventID, default: []].append(webhook) }
        for (eventID, deliveries) in events {
            guard let earliest = deliveries.min(by: { $0.delivery.createdAt < $1.delivery.createdAt }) else { continue }
            let first = earliest.delivery
            let delivered = deliveries.filter { $0.delivery.deliveredAt != nil }.count
            let failed = deliveries.filter { $0.delivery.failedAt != nil }.count
            let purchase = earliest.transactionID.flatMap { byTransaction[$0] }
            let renewal = first.eventType == "RENEWAL"
            let reach = "\(first.eventType) delivered to \(delivered) of \(ConsolePresenter.count(deliveries.count, "endpoint"))"
            out.append(
                CustomerFeedEntry(
                    at: first.createdAt, kind: renewal ? .renewal : .webhook, id: "w:\(eventID)", purchaseID: purchase?.id,
                    summary: renewal ? "Renewed \(purchase.map(productName) ?? "")" : "Webhook event \(first.eventType)",
                    detail: ([purchase.map(productName)].compactMap { $0 } + [reach]).joined(separator: " · "),
                    link: "/console/apps/\(appID)/webhooks", problem: failed > 0))
        }
        for audit in facts.audit {
            out.append(
                CustomerFeedEntry(
                    at: audit.at, kind: .support, id: "s:\(audit.id)", purchaseID: audit.objectType == "purchase" ? audit.objectID : nil,
                    summary: "\(source(audit.actor)): \(action(audit.action))",
                    detail: ([actor(audit.actor)] + [audit.detail].compactMap { $0 }).joined(separator: " · "),
                    link: audit.objectType == "purchase" && byID[audit.objectID] != nil ? anchor(audit.objectID) : nil))
        }
        return out
    }

    /// `purchase.refund` → "refund"; `grant.create` → "grant create".
    static func action(_ raw: String) -> String {
        let words = raw.split(separator: ".").map(String.init)
        if words.first == "purchase" || words.first == "customer" {
            return words.dropFirst().joined(separator: " ").replacingOccurrences(of: "_", with: " ")
        }
        return words.joined(separator: " ").replacingOccurrences(of: "_", with: " ")
    }

    /// Where an audited action came from, heading its history entry: the buyer in the portal, a backend through the
    /// API, or support (operators and the command line).
    static func source(_ actor: String) -> String {
        if actor == "customer:portal" { return "In the portal" }
        if actor.hasPrefix("key:") { return "Through the API" }
        return "Support"
    }

    /// `operator:ann@example.com` → "by ann@example.com"; `key:…` → "by an API key".
    static func actor(_ raw: String) -> String {
        if raw.hasPrefix("operator:") { return "by " + raw.dropFirst("operator:".count) }
        if raw.hasPrefix("key:") { return "by an API key" }
        if raw == "cli" { return "by the command line" }
        if raw == "customer:portal" { return "by the customer (portal)" }
        return "by \(raw)"
    }

    static func purchase(
        _ purchase: Purchase, now: Date, productName: String, stripeOn: Bool, mailOn: Bool, show: (String) -> String
    ) -> CustomerPage.PurchaseRow {
        CustomerPage.PurchaseRow(
            id: purchase.id, product: productName, productID: purchase.productID,
            store: ConsolePresenter.store(purchase.store, sandbox: purchase.isSandbox), sandbox: purchase.isSandbox,
            fastClock: SandboxClock.runs(purchase), purchased: ConsolePresenter.date(purchase.purchaseDate),
            state: ConsolePresenter.state(of: purchase, now: now),
            stateClass: ConsolePresenter.state(of: purchase, now: now).replacingOccurrences(of: " ", with: "-"),
            transaction: purchase.storeTransactionID,
            isGrant: purchase.store == .promotional, refunded: purchase.refundedAt != nil,
            // An action that goes through Stripe is offered only when Stripe is configured; the page says why otherwise.
            refundable: ConsolePresenter.offered(SupportRules.refund(purchase), stripeOn: stripeOn),
            cancellable: ConsolePresenter.offered(SupportRules.cancelAtPeriodEnd(purchase, now: now), stripeOn: stripeOn),
            resumable: ConsolePresenter.offered(SupportRules.resume(purchase, now: now), stripeOn: stripeOn),
            needsStripe: !stripeOn && purchase.store == .stripe && purchase.refundedAt == nil,
            revocable: PromotionalGrant.revokeRefusal(purchase, now: now) == nil,
            transferable: purchase.store != .promotional && purchase.refundedAt == nil,
            linkable: purchase.store != .promotional && purchase.refundedAt == nil,
            emailable: mailOn && purchase.email != nil,
            email: purchase.email.map(show),
            // English is every e-mail's default: only another language is worth a line.
            language: purchase.language.flatMap { $0 == "en" ? nil : Locale(identifier: "en").localizedString(forIdentifier: $0) ?? $0 },
            expires: purchase.expiresDate.map { ConsolePresenter.date($0) },
            // A grant's cancellation is its revocation, which its term already says.
            cancelledAt: PromotionalGrant.revokedAt(purchase) != nil ? nil : purchase.unsubscribeDetectedAt.map { ConsolePresenter.date($0) },
            cancellationReason: purchase.cancellationFeedback?.label,
            price: purchase.price.map(PriceFormat.string),
            term: term(PurchaseTerm(purchase, at: now)),
            dispute: purchase.dispute.map { disputeDetail($0) + " (\($0.id))" },
            termsConsent: purchase.termsConsent.map { CustomerPage.Consent(at: ConsolePresenter.date($0.acceptedAt), url: $0.termsURL) })
    }

    /// "Pro yearly (annual) · 49.99 USD / P1Y": a plan as an operator reads it; a downgrade says it waits for the
    /// period's end.
    static func planLabel(_ option: PlanChange.Option) -> String {
        let name = option.product.displayName.map { "\($0) (\(option.product.id))" } ?? option.product.id
        return name + " · " + PriceFormat.string(option.price.price) + (option.product.period.map { " / " + $0 } ?? "")
            + (option.timing == .atRenewal ? " · at period end" : "")
    }

    /// "reason: fraudulent · lost · 49.99 USD": a dispute, as the history and the purchase show it.
    static func disputeDetail(_ dispute: PurchaseDispute) -> String {
        ["reason: " + dispute.reasonLabel, dispute.statusLabel, dispute.amount.map(PriceFormat.string)].compactMap { $0 }.joined(separator: " · ")
    }

    /// "access until …" and the buyer's reason, under a cancellation in the history.
    static func cancellationDetail(_ purchase: Purchase) -> String {
        let until = purchase.expiresDate.map { "access until " + ConsolePresenter.date($0) }
        return [until, purchase.cancellationFeedback.map { "reason: " + $0.label }].compactMap { $0 }.joined(separator: " · ")
    }

    /// The purchase's term in the hint under its name; nothing for a one-time purchase.
    static func term(_ term: PurchaseTerm) -> String? {
        switch term {
        case .refunded(let date): "refunded \(ConsolePresenter.date(date))"
        case .chargedBack(let date): "charged back \(ConsolePresenter.date(date))"
        case .ended(let date): "ended \(ConsolePresenter.date(date))"
        case .revoked(let date): "revoked \(ConsolePresenter.date(date))"
        case .retrying(let until): "payment failed, retried until \(ConsolePresenter.date(until))"
        case .ends(let date): "ends \(ConsolePresenter.date(date)), won’t renew"
        case .renews(let date): "renews \(ConsolePresenter.date(date))"
        case .expires(let date): "renews or expires \(ConsolePresenter.date(date)) where it was paid"
        case .kept: nil
        }
    }

    // MARK: The list

    static func row(_ listing: CustomerListing, appID: String, now: Date, seesEmails: Bool) -> SearchPage.Row {
        let customer = listing.customer
        let purchases = listing.purchases
        let email = listing.email.map { seesEmails ? $0 : EmailMasking.mask($0) }
        let anonymous = customer.originalAppUserID.hasPrefix("$RCAnonymousID:")
        let (status, css) = state(purchases, now: now)
        return SearchPage.Row(
            name: email ?? (anonymous ? "Anonymous customer" : customer.originalAppUserID), appUserID: customer.originalAppUserID,
            email: email, status: status, statusClass: css, sandbox: !purchases.isEmpty && purchases.allSatisfy(\.isSandbox),
            lastSeen: ConsolePresenter.date(customer.lastSeen), url: ConsolePresenter.customerURL(appID: appID, customerID: customer.id))
    }

    /// The customer's state in a word, the most pressing first, judged by the list's own filters.
    static func state(_ purchases: [Purchase], now: Date) -> (String, String) {
        if CustomerListFilter.billingIssue.matches(purchases, now: now) { return ("billing issue", "grace") }
        if CustomerListFilter.wontRenew.matches(purchases, now: now) { return ("won’t renew", "grace") }
        if CustomerListFilter.trial.matches(purchases, now: now) { return ("in trial", "active") }
        if CustomerListFilter.active.matches(purchases, now: now) { return ("active", "active") }
        if CustomerListFilter.refunded.matches(purchases, now: now) { return ("refunded", "refunded") }
        return purchases.isEmpty ? ("no purchases", "none") : ("expired", "expired")
    }

    /// The list's URL with a filter, an environment and a cursor.
    static func listURL(
        appID: String, filter: CustomerListFilter, environment: CustomerListFilter.Environment, before: CustomerFeed.Cursor? = nil
    )
        -> String
    {
        var items: [String] = []
        if filter != .all { items.append("status=\(filter.rawValue)") }
        if environment != .any { items.append("env=\(environment.rawValue)") }
        if let before { items.append("before=" + before.text) }
        return "/console/apps/\(appID)" + (items.isEmpty ? "" : "?" + items.joined(separator: "&"))
    }

    static let filterLabels: [CustomerListFilter: String] = [
        .all: "All", .active: "Active", .trial: "In trial", .wontRenew: "Won’t renew", .refunded: "Refunded", .billingIssue: "Billing issue",
    ]
    static let environmentLabels: [CustomerListFilter.Environment: String] = [
        .any: "All environments", .production: "Production", .sandbox: "Sandbox",
    ]
}
