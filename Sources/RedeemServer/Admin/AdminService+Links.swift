import Foundation
import RedeemCore

/// A product's purchase links, production and sandbox, as the admin API and `redeem links purchase` give them.
public struct ProductLinks: Codable, Sendable, Hashable {
    public let productionURL: String
    public let sandboxURL: String

    public init(productionURL: String, sandboxURL: String) {
        self.productionURL = productionURL
        self.sandboxURL = sandboxURL
    }

    enum CodingKeys: String, CodingKey {
        case productionURL = "production_url"
        case sandboxURL = "sandbox_url"
    }
}

extension AdminService {
    /// The product's links on `publicURL`, for `appUserID` when given (checked as the checkout checks it) and with the
    /// `utm_*` values in `utm`; blank values are left out. An unknown app or product is not found.
    public func purchaseLinks(
        appID: String, productID: String, publicURL: URL, appUserID: String? = nil, utm: [String: String] = [:]
    ) async throws -> ProductLinks {
        // The contract's bound: a value longer than 255 characters is refused by name, never put in a link.
        for (name, value) in utm where value.count > 255 {
            throw ValidationError(field: name, reason: "must be at most 255 characters")
        }
        let product = try await store.product(appID: appID, id: productID)
        let options = PurchaseLinks.Options(appUserID: appUserID, utm: utm)
        if let appUserID = options.appUserID { _ = try AppUserID(validating: appUserID) }
        let pair = PurchaseLinks.pair(publicURL: publicURL, appID: product.appID, productID: product.id, options: options)
        return ProductLinks(productionURL: pair.production, sandboxURL: pair.sandbox)
    }
}
