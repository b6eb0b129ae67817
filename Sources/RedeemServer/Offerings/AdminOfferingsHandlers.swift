import Foundation
import OpenAPIRuntime
import RedeemCore

/// `/admin/v1/apps/{app_id}/offerings`.
extension APIHandlers {
    func createOffering(_ input: Operations.CreateOffering.Input) async throws -> Operations.CreateOffering.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let body) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        let offering = try await admin.createOffering(appID: appID, id: body.identifier, try Self.changes(body))
        return .created(.init(body: .json(offering)))
    }

    func listOfferings(_ input: Operations.ListOfferings.Input) async throws -> Operations.ListOfferings.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        return .ok(.init(body: .json(.init(offerings: try await admin.offerings(appID: appID)))))
    }

    func replaceOffering(_ input: Operations.ReplaceOffering.Input) async throws -> Operations.ReplaceOffering.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        guard case .json(let body) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        guard body.identifier == input.path.offeringId else {
            throw ValidationError(field: "identifier", reason: "must be the path's offering ID, '\(input.path.offeringId)'")
        }
        return .ok(.init(body: .json(try await admin.replaceOffering(appID: appID, id: body.identifier, try Self.changes(body)))))
    }

    func deleteOffering(_ input: Operations.DeleteOffering.Input) async throws -> Operations.DeleteOffering.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        try await admin.deleteOffering(appID: appID, id: input.path.offeringId)
        return .noContent(.init())
    }

    static func changes(_ body: Components.Schemas.OfferingInput) throws -> AdminService.OfferingChanges {
        let metadata = try body.metadata.map { String(decoding: try JSONEncoder.sortedKeys.encode($0), as: UTF8.self) } ?? "{}"
        return AdminService.OfferingChanges(
            description: body.description ?? "", metadataJSON: metadata, isCurrent: body.isCurrent ?? false,
            packages: (body.packages ?? []).map { Offering.Package(id: $0.identifier, productID: $0.productId) })
    }

}

extension JSONEncoder {
    fileprivate static var sortedKeys: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
