import Foundation
import OpenAPIRuntime
import RedeemCore

/// `/admin/v1/apps/{app_id}/offers`, `/code_batches`, `/custom_codes` and the offer-code usage and report.
extension APIHandlers {
    func createOffer(_ input: Operations.CreateOffer.Input) async throws -> Operations.CreateOffer.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let offer) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        return .created(.init(body: .json(try await admin.createOffer(appID: appID, offer))))
    }

    func listOffers(_ input: Operations.ListOffers.Input) async throws -> Operations.ListOffers.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        return .ok(.init(body: .json(.init(offers: try await admin.offers(appID: appID, productID: input.query.productId)))))
    }

    func showOffer(_ input: Operations.ShowOffer.Input) async throws -> Operations.ShowOffer.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        return .ok(.init(body: .json(try await admin.offer(appID: appID, id: input.path.offerId))))
    }

    func switchOffer(_ input: Operations.SwitchOffer.Input) async throws -> Operations.SwitchOffer.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let change) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        return .ok(.init(body: .json(try await admin.setOfferActive(appID: appID, id: input.path.offerId, active: change.active))))
    }

    /// The codes are in this response only: JSON by default, CSV with `?format=csv`.
    func generateCodeBatch(_ input: Operations.GenerateCodeBatch.Input) async throws -> Operations.GenerateCodeBatch.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let request) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        let generated = try await admin.generateCodes(
            appID: appID, offerID: input.path.offerId, count: request.count, length: request.length ?? 16, expiresAt: request.expiresAt)
        if input.query.format == "csv" {
            return .created(
                .init(
                    headers: .init(
                        cacheControl: "no-store", contentDisposition: "attachment; filename=\"\(generated.batch.id).csv\"",
                        xRedeemBatchID: generated.batch.id),
                    body: .textCsvCharsetUtf8(HTTPBody(generated.csv(publicURL: deps.publicURL)))))
        }
        let batch = Components.Schemas.GeneratedCodeBatch(
            batch: generated.batch, codes: generated.codes.map(OfferCode.grouped),
            redemptionUrlBase: OfferCodeLinks.redeemPageBase(publicURL: deps.publicURL, appID: appID))
        return .created(.init(headers: .init(cacheControl: "no-store"), body: .json(batch)))
    }

    func listCodeBatches(_ input: Operations.ListCodeBatches.Input) async throws -> Operations.ListCodeBatches.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        return .ok(.init(body: .json(.init(batches: try await admin.codeBatches(appID: appID, offerID: input.query.offerId)))))
    }

    func switchCodeBatch(_ input: Operations.SwitchCodeBatch.Input) async throws -> Operations.SwitchCodeBatch.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let change) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        return .ok(.init(body: .json(try await admin.setCodeBatchActive(appID: appID, id: input.path.batchId, active: change.active))))
    }

    func createCustomCode(_ input: Operations.CreateCustomCode.Input) async throws -> Operations.CreateCustomCode.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let code) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        return .created(.init(body: .json(try await admin.createCustomCode(appID: appID, code))))
    }

    func listCustomCodes(_ input: Operations.ListCustomCodes.Input) async throws -> Operations.ListCustomCodes.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let codes = try await admin.customCodes(appID: appID, offerID: input.query.offerId)
        return .ok(.init(body: .json(.init(customCodes: codes))))
    }

    func switchCustomCode(_ input: Operations.SwitchCustomCode.Input) async throws -> Operations.SwitchCustomCode.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let change) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        return .ok(.init(body: .json(try await admin.setCustomCodeActive(appID: appID, id: input.path.codeId, active: change.active))))
    }

    func offerCodeUsage(_ input: Operations.OfferCodeUsage.Input) async throws -> Operations.OfferCodeUsage.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        return .ok(.init(body: .json(try await admin.offerCodeUsage(appID: appID))))
    }

    /// JSON by default; `?format=csv` gives the report as a spreadsheet.
    func offerRedemptionReport(_ input: Operations.OfferRedemptionReport.Input) async throws -> Operations.OfferRedemptionReport.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let offerID = input.query.offerId
        if input.query.format == "csv" {
            let csv = try await admin.offerRedemptionReport(appID: appID, offerID: offerID)
            return .ok(
                .init(
                    headers: .init(contentDisposition: "attachment; filename=\"offer-redemptions-\(appID).csv\""),
                    body: .textCsvCharsetUtf8(HTTPBody(csv))))
        }
        return .ok(.init(body: .json(.init(redemptions: try await admin.offerRedemptions(appID: appID, offerID: offerID)))))
    }
}
