import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `/console/apps/{app_id}/offers`: offers, custom codes, the quarter's quota and the redemption report (code batches are
/// `ConsoleCodeBatchesController`'s). Any operator reads; owners write, through `AdminService` (validated and audited
/// there, as from the admin API and the CLI).
struct ConsoleOffersController {
    let service: ConsoleService
    let pages: ConsolePages
    let admin: AdminService
    let offersPage: OffersPage

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/console/apps/{app_id}/offers", use: offers)
        router.post("/console/apps/{app_id}/offers", use: createOffer)
        router.post("/console/apps/{app_id}/offers/{offer_id}/active", use: switchOffer)
        router.get("/console/apps/{app_id}/offers/report.csv", use: report)
        router.post("/console/apps/{app_id}/custom-codes", use: createCustomCode)
        router.post("/console/apps/{app_id}/custom-codes/{code_id}/active", use: switchCustomCode)
    }

    @Sendable func offers(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await offersPage.render(context: context, error: nil, status: .ok, request: request)
    }

    // MARK: Offers

    @Sendable func createOffer(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await write(request, context, "create offers") { form, appID, session in
            let admin = admin.acting(as: session.actor)
            let mode = form["payment_mode"] ?? ""
            let isFree = mode == OfferPaymentMode.freeTrial.rawValue
            let id = try FormID.submitted(form, field: "form_id")?.derivedID(prefix: "ofr", scope: "offer-request")
            try await Self.once(id, exists: { try await admin.offer(appID: appID, id: $0) }) {
                _ = try await admin.createOffer(
                    appID: appID,
                    OfferInput(
                        productID: form["product_id"] ?? "", referenceName: (form["reference_name"] ?? "").trimmingCharacters(in: .whitespaces),
                        paymentMode: mode, duration: Self.nonEmpty(form["duration"]), periods: try Self.number(form["periods"], field: "periods"),
                        price: isFree ? nil : try ConsoleCatalogController.price(form),
                        eligibility: ["new", "existing", "expired"].filter { form["eligible_\($0)"] == "yes" },
                        startsAt: try Self.day(form["starts_on"], field: "starts_at"), endsAt: try Self.day(form["ends_on"], field: "ends_at"),
                        active: form["inactive"] != "yes"),
                    id: id)
            }
            return .offerSaved
        }
    }

    @Sendable func switchOffer(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await switchActive(request, context, "switch offers") { appID, active, admin in
            _ = try await admin.setOfferActive(appID: appID, id: try context.parameters.decoded("offer_id"), active: active)
        }
    }

    /// Every redemption as CSV (for one offer with `?offer=`); any operator, as the customer pages.
    @Sendable func report(_ request: Request, context: ConsoleContext) async throws -> Response {
        let appID = try context.appID
        let offerID = request.uri.queryParameters["offer"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        let csv = try await admin.offerRedemptionReport(appID: appID, offerID: offerID)
        return Self.csv(csv, filename: "redemptions-\(offerID ?? appID).csv")
    }

    // MARK: Custom codes

    @Sendable func createCustomCode(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await write(request, context, "create codes") { form, appID, session in
            let admin = admin.acting(as: session.actor)
            let id = try FormID.submitted(form, field: "form_id")?.derivedID(prefix: "cc", scope: "custom-code-request")
            try await Self.once(id, exists: { id in try await admin.customCodes(appID: appID, offerID: nil).first { $0.id == id } }) {
                _ = try await admin.createCustomCode(
                    appID: appID,
                    CustomCodeInput(
                        offerID: form["offer_id"] ?? "", code: form["code"] ?? "",
                        maxRedemptions: try Self.number(form["max_redemptions"], field: "max_redemptions") ?? 0,
                        expiresAt: try Self.day(form["expires_on"], field: "expires_at"), active: true),
                    id: id)
            }
            return .customCodeSaved
        }
    }

    @Sendable func switchCustomCode(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await switchActive(request, context, "switch codes") { appID, active, admin in
            _ = try await admin.setCustomCodeActive(appID: appID, id: try context.parameters.decoded("code_id"), active: active)
        }
    }

    /// An owner's on/off switch: the form's `active=yes` turns it on, its absence off.
    func switchActive(
        _ request: Request, _ context: ConsoleContext, _ what: String, _ body: (String, Bool, AdminService) async throws -> Void
    ) async throws -> Response {
        try await write(request, context, what) { form, appID, session in
            let active = form["active"] == "yes"
            try await body(appID, active, admin.acting(as: session.actor))
            return active ? .switchedOn : .switchedOff
        }
    }

    // MARK: Forms and the page

    /// Creates what a form asks for under `id`, its form's own: when the same form was already sent (a double click, or
    /// a resubmit after a reload without the page's script), the conflict is its own creation, and counts as done.
    static func once<T>(_ id: String?, exists: (String) async throws -> T, create: () async throws -> Void) async throws {
        do {
            try await create()
        } catch let error as StoreError where error.isConflict {
            guard let id, (try? await exists(id)) != nil else { throw error }
        }
    }

    func write(
        _ request: Request, _ context: ConsoleContext, _ what: String,
        _ body: ([String: String], String, ConsoleSession) async throws -> ConsoleNotice
    ) async throws -> Response {
        try await context.ownerWrite(what, page: "offers", describe: Self.describe) { _, error, status, _, form in
            try await offersPage.render(context: context, error: error, status: status, request: request, typed: form)
        } body: { form, appID, session in
            try await body(form, appID, session)
        }
    }

    /// The new-offer form: its defaults, or what was typed when it was refused (and then it opens).
}
