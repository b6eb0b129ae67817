import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// The offers page (offers, code batches, custom codes, the quarter's quota), shown by the offers and the code-batch
/// controllers, and again with a refused form as it was typed.
struct OffersPage: Sendable {
    let service: ConsoleService
    let pages: ConsolePages
    let admin: AdminService
    let jobs: CodeBatchJobs
    let publicURL: URL
    /// Whether this server has Stripe, without which a paid offer's production link sells nothing.
    let paidCheckout: Bool

    /// `typed`: a refused form as it was sent, so it opens again with what was typed (the offer form or the code form,
    /// told apart by the request's path).
    func render(
        context: ConsoleContext, error: String?, status: HTTPResponse.Status, request: Request, typed: [String: String]? = nil
    ) async throws -> Response {
        let appID = try context.appID
        let session = context.session
        let now = service.clock.now()
        let offerForm = request.uri.path.hasSuffix("/offers") ? typed : nil
        let codeForm = request.uri.path.hasSuffix("/custom-codes") ? typed : nil
        let products = try await admin.products(appID: appID)
        let offers = try await admin.offers(appID: appID, productID: nil)
        let names = Dictionary(offers.map { ($0.id, $0.referenceName) }, uniquingKeysWith: { first, _ in first })
        let usage = try await admin.offerCodeUsage(appID: appID)
        let redemptions = Dictionary(usage.offers.map { ($0.offerID, $0.redemptions) }, uniquingKeysWith: +)
        let productsByID = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let offerRows = offers.map { offer in
            OffersPresenter.offer(offer, product: productsByID[offer.productID], now: now, redemptions: redemptions[offer.id] ?? 0)
        }
        let limits = products.filter { $0.type == .subscription }.map { product in
            let active = offers.filter { $0.productID == product.id && $0.isActive }.count
            return OffersPageModel.Limit(
                product: product.id, active: active, max: Offer.maxActivePerSubscription, full: active >= Offer.maxActivePerSubscription)
        }.filter { $0.active > 0 }
        let batches = try await admin.codeBatches(appID: appID, offerID: nil).map {
            OffersPresenter.batch($0, offerName: names[$0.offerID] ?? $0.offerID, now: now)
        }
        let offersByID = Dictionary(offers.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let customCodes = try await admin.customCodes(appID: appID, offerID: nil).map { code in
            let usable = code.isActive && !(code.expiresAt.map { $0 <= now } ?? false) && offersByID[code.offerID]?.isActive == true
            return OffersPresenter.customCode(
                code, offerName: names[code.offerID] ?? code.offerID, now: now,
                links: usable ? ConsoleLinks.code(code, offer: offersByID[code.offerID], publicURL: publicURL, paidCheckout: paidCheckout) : [])
        }
        let pendingJobs = jobs.pending(appID: appID, operatorID: session.operator.id).map { job in
            let ready = if case .ready = job.state { true } else { false }
            return OffersPageModel.Job(
                id: job.id, count: ConsoleOffersController.grouped(job.count), ready: ready, percent: Int((job.fraction * 100).rounded()))
        }
        let defaultExpiry = ISO8601Period(months: 3).advance(now)
        let values = OffersPageModel(
            offers: offerRows, limits: limits, batches: batches, customCodes: customCodes, jobs: pendingJobs,
            products: products.map { product in
                let label = product.displayName.map { "\($0) (\(product.id))" } ?? product.id
                return Choice(value: product.id, label: label, selected: offerForm?["product_id"] == product.id)
            },
            activeOffers: offers.filter(\.isActive).map {
                OffersPageModel.ActiveOffer(id: $0.id, name: $0.referenceName, selectedForCode: codeForm?["offer_id"] == $0.id)
            },
            durations: OfferDuration.allCases.map {
                Choice(value: $0.rawValue, label: OfferSummary.words($0.period), selected: offerForm?["duration"] == $0.rawValue)
            },
            modes: OfferPaymentMode.allCases.map {
                Choice(value: $0.rawValue, label: ConsoleOffersController.words($0), selected: offerForm?["payment_mode"] == $0.rawValue)
            },
            offerForm: ConsoleOffersController.offerForm(offerForm), codeForm: ConsoleOffersController.codeForm(codeForm),
            quarter: usage.quarter, used: ConsoleOffersController.grouped(usage.used), quota: ConsoleOffersController.grouped(usage.quota),
            usedPercent: usage.quota > 0 ? min(100, usage.used * 100 / usage.quota) : 0,
            maxCount: OfferCodeBatch.maxCount, maxCap: CustomOfferCode.maxCap,
            defaultExpiry: String(ISODate.format(defaultExpiry).prefix(10)),
            today: String(ISODate.format(now).prefix(10)),
            latestExpiry: String(ISODate.format(OfferCodeBatch.maxLifetime.advance(now)).prefix(10)),
            error: error, notice: ConsolePages.notice(request), batchFormID: FormID.make())
        return pages.page("console-offers", status: status, context: context, values)
    }
}

/// Offers, batches and custom codes as the console's offers page shows them.
enum OffersPresenter {
    static func offer(_ offer: Offer, product: Product?, now: Date, redemptions: Int) -> OffersPageModel.OfferRow {
        var warning: String?
        if let price = offer.price, let productPrice = product?.price, price.currency != productPrice.currency {
            warning =
                "Priced in \(price.currency) while \(product?.displayName ?? offer.productID) is in \(productPrice.currency): buyers see two currencies."
        }
        var window: [String] = []
        if let starts = offer.startsAt { window.append((starts > now ? "starts " : "started ") + ConsolePresenter.date(starts)) }
        if let ends = offer.endsAt { window.append((ends > now ? "ends " : "ended ") + ConsolePresenter.date(ends)) }
        return OffersPageModel.OfferRow(
            id: offer.id, name: offer.referenceName, product: offer.productID, active: offer.isActive,
            terms: product.map { OfferSummary.text(offer, product: $0) } ?? "",
            who: product.map { OfferSummary.eligibility(offer, product: $0) } ?? "", warning: warning,
            window: window.isEmpty ? nil : window.joined(separator: ", "), redemptions: ConsoleOffersController.grouped(redemptions))
    }

    static func batch(_ batch: OfferCodeBatch, offerName: String, now: Date) -> OffersPageModel.Batch {
        OffersPageModel.Batch(
            id: batch.id, offer: offerName, count: ConsoleOffersController.grouped(batch.count),
            redeemed: ConsoleOffersController.grouped(batch.redeemed ?? 0), created: ConsolePresenter.date(batch.createdAt),
            expires: ConsolePresenter.date(batch.expiresAt), expired: batch.expiresAt <= now, active: batch.isActive)
    }

    static func customCode(_ code: CustomOfferCode, offerName: String, now: Date, links: [ConsoleLink]) -> OffersPageModel.CustomCode {
        OffersPageModel.CustomCode(
            id: code.id, code: code.code, offer: offerName, active: code.isActive, used: ConsoleOffersController.grouped(code.redemptionCount),
            cap: ConsoleOffersController.grouped(code.maxRedemptions), full: code.redemptionCount >= code.maxRedemptions,
            expires: code.expiresAt.map(ConsolePresenter.date), expired: code.expiresAt.map { $0 <= now } ?? false, links: links)
    }
}
