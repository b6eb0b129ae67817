import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `/console/apps/{app_id}/offerings`: the app's offerings (RevenueCat's model: packages of products, one offering
/// current) and what each store's SDK is shown of them. Any operator reads; owners create, edit and delete, through
/// `AdminService` (validated and audited there, as from the admin API and the CLI).
struct ConsoleOfferingsController {
    let service: ConsoleService
    let pages: ConsolePages
    let admin: AdminService

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/console/apps/{app_id}/offerings", use: offerings)
        router.post("/console/apps/{app_id}/offerings", use: create)
        router.get("/console/apps/{app_id}/offerings/{offering_id}", use: offering)
        router.post("/console/apps/{app_id}/offerings/{offering_id}", use: replace)
        router.post("/console/apps/{app_id}/offerings/{offering_id}/delete", use: delete)
    }

    @Sendable func offerings(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await listPage(context: context, error: nil, typed: nil, status: .ok, request: request)
    }

    @Sendable func offering(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await editPage(
            context: context, id: try context.parameters.decoded("offering_id"), error: nil, typed: nil, status: .ok, request: request)
    }

    @Sendable func create(_ request: Request, context: ConsoleContext) async throws -> Response {
        try await context.ownerWrite(
            "change offerings", page: "offerings", describe: ConsoleOfferingForm.describe
        ) { _, error, status, _, form in
            try await listPage(context: context, error: error, typed: form, status: status, request: request)
        } body: { form, appID, session in
            let id = (form["identifier"] ?? "").trimmingCharacters(in: .whitespaces)
            _ = try await admin.acting(as: session.actor).createOffering(appID: appID, id: id, try ConsoleOfferingForm.changes(form))
            return .offeringSaved
        }
    }

    @Sendable func replace(_ request: Request, context: ConsoleContext) async throws -> Response {
        let id = try context.parameters.decoded("offering_id")
        return try await context.ownerWrite(
            "change offerings", page: "offerings", describe: ConsoleOfferingForm.describe
        ) { _, error, status, _, form in
            try await editPage(context: context, id: id, error: error, typed: form, status: status, request: request)
        } body: { form, appID, session in
            _ = try await admin.acting(as: session.actor).replaceOffering(appID: appID, id: id, try ConsoleOfferingForm.changes(form))
            return .offeringSaved
        }
    }

    @Sendable func delete(_ request: Request, context: ConsoleContext) async throws -> Response {
        let id = try context.parameters.decoded("offering_id")
        return try await context.ownerWrite(
            "change offerings", page: "offerings", describe: ConsoleOfferingForm.describe
        ) { _, error, status, _, _ in
            try await editPage(context: context, id: id, error: error, typed: nil, status: status, request: request)
        } body: { form, appID, session in
            guard form["confirm"] == "yes" else { throw ValidationError(field: "confirm", reason: "is not ticked") }
            try await admin.acting(as: session.actor).deleteOffering(appID: appID, id: id)
            return .offeringDeleted
        }
    }

    // MARK: Pages

    /// The list, and the form for a new offering (open, with what was typed, after a refusal).
    func listPage(
        context: ConsoleContext, error: String?, typed: [String: String]?, status: HTTPResponse.Status, request: Request
    ) async throws -> Response {
        let appID = try context.appID
        let products = try await admin.products(appID: appID)
        let byID = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let offerings = try await admin.offerings(appID: appID)
        let chosen = try await admin.offeringOverrideCounts(appID: appID)
        var form = ConsoleOfferingForm.values(
            identifier: typed?["identifier"] ?? "", description: typed?["description"] ?? "", metadata: typed?["metadata"] ?? "{}",
            isCurrent: typed.map { $0["is_current"] == "yes" } ?? offerings.isEmpty, rows: typed.map(ConsoleOfferingForm.rows) ?? [],
            products: products, action: "/console/apps/\(appID)/offerings", submit: "Create offering")
        form.open = typed != nil
        let values = OfferingsPage(
            offerings: offerings.map { OfferingsPresenter.offering($0, products: byID, chosenBy: chosen[$0.id] ?? 0) }, form: form,
            noProducts: products.isEmpty,
            error: error, notice: ConsolePages.notice(request))
        return pages.page("console-offerings", status: status, context: context, values)
    }

    /// One offering's form (read-only for support) and its delete button.
    func editPage(
        context: ConsoleContext, id: String, error: String?, typed: [String: String]?, status: HTTPResponse.Status, request: Request
    ) async throws -> Response {
        let appID = try context.appID
        guard let offering = try await admin.offerings(appID: appID).first(where: { $0.id == id }) else {
            throw APIError.notFound("No offering '\(id)'.")
        }
        let products = try await admin.products(appID: appID)
        let byID = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var form = ConsoleOfferingForm.values(
            identifier: offering.id, description: typed?["description"] ?? offering.description,
            metadata: typed?["metadata"] ?? ConsoleOfferingForm.pretty(offering.metadataJSON),
            isCurrent: typed.map { $0["is_current"] == "yes" } ?? offering.isCurrent,
            rows: typed.map(ConsoleOfferingForm.rows) ?? offering.packages.map { ConsoleOfferingForm.Row($0) }, products: products,
            action: "/console/apps/\(appID)/offerings/\(offering.id)", submit: "Save offering")
        form.fixed = true
        let chosenBy = try await admin.offeringOverrideCounts(appID: appID)[offering.id] ?? 0
        let values = OfferingPage(offering: OfferingsPresenter.offering(offering, products: byID, chosenBy: chosenBy), form: form, error: error)
        return pages.page("console-offering", status: status, context: context, values)
    }
}
