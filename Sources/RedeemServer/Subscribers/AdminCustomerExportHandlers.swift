import Foundation
import OpenAPIRuntime
import RedeemCore

/// A customer's data through the admin API (`redeem customers export --server`): the console's export, by app user ID.
extension APIHandlers {
    func exportCustomer(_ input: Operations.ExportCustomer.Input) async throws -> Operations.ExportCustomer.Output {
        let appID = try await admin.authorized(appID: input.path.appId, context)
        let file = try await deps.exports.export(appID: appID, appUserID: try AppUserID.parse(input.path.appUserId), actor: try keyActor())
        // The file as the console's download has it, carried through the generated answer's free-form object.
        let body = try JSONDecoder().decode(Components.Schemas.CustomerExport.self, from: file)
        return .ok(.init(headers: .init(cacheControl: "no-store"), body: .json(body)))
    }
}
