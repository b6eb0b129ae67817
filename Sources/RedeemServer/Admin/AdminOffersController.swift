import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// `/admin/v1/apps/{app_id}/offers`, `/code_batches`, `/custom_codes` and the offer-code usage and report.
struct AdminOffersController {
    let admin: AdminService
    let store: any AdminStore
    let publicURL: URL

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("/apps/{app_id}/offers", use: createOffer)
        group.get("/apps/{app_id}/offers", use: listOffers)
        group.get("/apps/{app_id}/offers/{offer_id}", use: showOffer)
        group.patch("/apps/{app_id}/offers/{offer_id}", use: updateOffer)
        group.post("/apps/{app_id}/offers/{offer_id}/code_batches", use: generateCodes)
        group.get("/apps/{app_id}/code_batches", use: listBatches)
        group.patch("/apps/{app_id}/code_batches/{batch_id}", use: updateBatch)
        group.post("/apps/{app_id}/custom_codes", use: createCustomCode)
        group.get("/apps/{app_id}/custom_codes", use: listCustomCodes)
        group.patch("/apps/{app_id}/custom_codes/{code_id}", use: updateCustomCode)
        group.get("/apps/{app_id}/offer_codes/usage", use: usage)
        group.get("/apps/{app_id}/offer_codes/redemptions", use: redemptions)
    }

    struct OfferList: Encodable { let offers: [Offer] }
    struct BatchList: Encodable { let batches: [OfferCodeBatch] }
    struct CustomCodeList: Encodable {
        let customCodes: [CustomOfferCode]
        enum CodingKeys: String, CodingKey { case customCodes = "custom_codes" }
    }
    struct RedemptionList: Encodable { let redemptions: [OfferRedemptionRecord] }
    struct ActiveSwitch: Decodable { let active: Bool }
    struct BatchRequest: Decodable {
        let count: Int
        let length: Int?
        let expiresAt: Date
        enum CodingKeys: String, CodingKey {
            case count, length
            case expiresAt = "expires_at"
        }
    }
    struct GeneratedBatch: Encodable {
        let batch: OfferCodeBatch
        let codes: [String]
        let redemptionURLBase: String
        enum CodingKeys: String, CodingKey {
            case batch, codes
            case redemptionURLBase = "redemption_url_base"
        }
    }

    @Sendable func createOffer(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Offer> {
        let appID = try await admin.authorizedAppID(context)
        let input = try await request.decodeAdminJSON(OfferInput.self, context: context)
        return JSONResponse(try await admin.createOffer(appID: appID, input), status: .created)
    }

    @Sendable func listOffers(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<OfferList> {
        let appID = try await admin.authorizedAppID(context)
        let product = request.uri.queryParameters["product_id"].map(String.init)
        return JSONResponse(OfferList(offers: try await store.offers(appID: appID, productID: product)))
    }

    @Sendable func showOffer(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Offer> {
        let appID = try await admin.authorizedAppID(context)
        return JSONResponse(try await store.offer(appID: appID, id: try context.parameters.decoded("offer_id")))
    }

    @Sendable func updateOffer(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<Offer> {
        let appID = try await admin.authorizedAppID(context)
        let input = try await request.decodeAdminJSON(ActiveSwitch.self, context: context)
        return JSONResponse(try await admin.setOfferActive(appID: appID, id: try context.parameters.decoded("offer_id"), active: input.active))
    }

    /// The codes are in this response only: JSON by default, CSV with `?format=csv`.
    @Sendable func generateCodes(_ request: Request, context: AppRequestContext) async throws -> Response {
        let appID = try await admin.authorizedAppID(context)
        let input = try await request.decodeAdminJSON(BatchRequest.self, context: context)
        let generated = try await admin.generateCodes(
            appID: appID, offerID: try context.parameters.decoded("offer_id"), count: input.count, length: input.length ?? 16,
            expiresAt: input.expiresAt
        )
        if request.uri.queryParameters["format"] == "csv" {
            var response = Response(status: .created, body: .init(byteBuffer: ByteBuffer(string: generated.csv(publicURL: publicURL))))
            response.headers[.contentType] = "text/csv; charset=utf-8"
            response.headers[.contentDisposition] = "attachment; filename=\"\(generated.batch.id).csv\""
            response.headers[.cacheControl] = "no-store"
            response.headers[.init("X-Redeem-Batch-ID")!] = generated.batch.id
            return response
        }
        var response = try JSONResponse(
            GeneratedBatch(
                batch: generated.batch, codes: generated.codes.map(OfferCode.grouped),
                redemptionURLBase: OfferCodeLinks.redeemPageBase(publicURL: publicURL, appID: appID)
            ), status: .created
        ).response(from: request, context: context)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    @Sendable func listBatches(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<BatchList> {
        let appID = try await admin.authorizedAppID(context)
        let offer = request.uri.queryParameters["offer_id"].map(String.init)
        return JSONResponse(BatchList(batches: try await store.codeBatches(appID: appID, offerID: offer)))
    }

    @Sendable func updateBatch(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<OfferCodeBatch> {
        let appID = try await admin.authorizedAppID(context)
        let input = try await request.decodeAdminJSON(ActiveSwitch.self, context: context)
        return JSONResponse(try await admin.setCodeBatchActive(appID: appID, id: try context.parameters.decoded("batch_id"), active: input.active))
    }

    @Sendable func createCustomCode(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<CustomOfferCode> {
        let appID = try await admin.authorizedAppID(context)
        let input = try await request.decodeAdminJSON(CustomCodeInput.self, context: context)
        return JSONResponse(try await admin.createCustomCode(appID: appID, input), status: .created)
    }

    @Sendable func listCustomCodes(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<CustomCodeList> {
        let appID = try await admin.authorizedAppID(context)
        let offer = request.uri.queryParameters["offer_id"].map(String.init)
        return JSONResponse(CustomCodeList(customCodes: try await store.customCodes(appID: appID, offerID: offer)))
    }

    @Sendable func updateCustomCode(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<CustomOfferCode> {
        let appID = try await admin.authorizedAppID(context)
        let input = try await request.decodeAdminJSON(ActiveSwitch.self, context: context)
        return JSONResponse(try await admin.setCustomCodeActive(appID: appID, id: try context.parameters.decoded("code_id"), active: input.active))
    }

    @Sendable func usage(_ request: Request, context: AppRequestContext) async throws -> JSONResponse<OfferCodeUsage> {
        let appID = try await admin.authorizedAppID(context)
        return JSONResponse(try await store.offerCodeUsage(appID: appID, now: admin.clock.now()))
    }

    /// JSON by default; `?format=csv` gives the report as a spreadsheet.
    @Sendable func redemptions(_ request: Request, context: AppRequestContext) async throws -> Response {
        let appID = try await admin.authorizedAppID(context)
        let offer = request.uri.queryParameters["offer_id"].map(String.init)
        if request.uri.queryParameters["format"] == "csv" {
            let csv = try await admin.offerRedemptionReport(appID: appID, offerID: offer)
            var response = Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: csv)))
            response.headers[.contentType] = "text/csv; charset=utf-8"
            response.headers[.contentDisposition] = "attachment; filename=\"offer-redemptions-\(appID).csv\""
            return response
        }
        return try JSONResponse(RedemptionList(redemptions: try await store.offerRedemptions(appID: appID, offerID: offer)))
            .response(from: request, context: context)
    }
}
