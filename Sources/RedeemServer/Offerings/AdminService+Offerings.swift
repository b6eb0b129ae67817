import Foundation
import RedeemCore
import RedeemStore

/// Offerings, managed from the admin API, the CLI and the console alike.
extension AdminService {
    /// What an offering is made of, as the admin API and the CLI send it.
    public struct OfferingChanges: Sendable {
        public var description: String
        public var metadataJSON: String
        public var isCurrent: Bool
        public var packages: [Offering.Package]

        public init(description: String = "", metadataJSON: String = "{}", isCurrent: Bool = false, packages: [Offering.Package] = []) {
            self.description = description
            self.metadataJSON = metadataJSON
            self.isCurrent = isCurrent
            self.packages = packages
        }
    }

    public func createOffering(appID: String, id: String, _ changes: OfferingChanges) async throws -> Offering {
        let offering = try await validated(appID: appID, id: id, changes)
        try await store.createOffering(offering, audit: try audit("offering.create", "offering", id, appID: appID))
        return offering
    }

    public func replaceOffering(appID: String, id: String, _ changes: OfferingChanges) async throws -> Offering {
        var offering = try await validated(appID: appID, id: id, changes)
        offering.createdAt = try await store.offerings(appID: appID).first { $0.id == id }?.createdAt ?? offering.createdAt
        try await store.updateOffering(offering, audit: try audit("offering.update", "offering", id, appID: appID))
        return offering
    }

    public func deleteOffering(appID: String, id: String) async throws {
        try await store.deleteOffering(appID: appID, id: id, audit: try audit("offering.delete", "offering", id, appID: appID))
    }

    private func validated(appID: String, id: String, _ changes: OfferingChanges) async throws -> Offering {
        let offering = Offering(
            appID: appID, id: id, description: changes.description, metadataJSON: changes.metadataJSON, isCurrent: changes.isCurrent,
            packages: changes.packages, createdAt: clock.now())
        try offering.validate(products: try await store.products(appID: appID))
        return offering
    }
}
