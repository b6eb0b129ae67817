import Foundation

/// purchases-ios's `HealthReport` (`Sources/Networking/Responses/HealthReportResponse.swift` at `ff486da380`), field
/// for field, decoded as the SDK decodes it (`convertFromSnakeCase`; its enums refuse an unknown value, and a check's
/// `details` are decoded by its name), and the verdict `HealthReport+Validate.swift` draws from it.
enum RevenueCatHealthReportDecoding {
    enum HealthCheckStatus: String, Codable { case passed, failed, warning, unknown }
    enum HealthCheckType: String, Codable {
        case apiKey = "api_key"
        case bundleId = "bundle_id"
        case products
        case offerings
        case offeringsProducts = "offerings_products"
    }
    enum ProductStatus: String, Codable {
        case valid = "ok"
        case couldNotCheck = "could_not_check"
        case notFound = "not_found"
        case actionInProgress = "action_in_progress"
        case needsAction = "needs_action"
        case unknown
    }

    struct PackageHealthReport: Codable {
        let identifier: String
        let title: String?
        let status: ProductStatus
        let description: String
        let productIdentifier: String
        let productTitle: String?
    }

    struct OfferingHealthReport: Codable {
        let identifier: String
        let packages: [PackageHealthReport]
        let status: HealthCheckStatus
    }

    struct OfferingsCheckDetails: Codable { let offerings: [OfferingHealthReport] }
    struct BundleIdCheckDetails: Codable {
        let sdkBundleId: String
        let appBundleId: String
    }
    struct ProductHealthReport: Codable {
        let identifier: String
        let title: String?
        let status: ProductStatus
        let description: String
    }
    struct ProductsCheckDetails: Codable { let products: [ProductHealthReport] }

    enum HealthCheckDetails {
        case offeringsProducts(OfferingsCheckDetails)
        case bundleId(BundleIdCheckDetails)
        case products(ProductsCheckDetails)
    }

    struct HealthCheck: Decodable {
        let name: HealthCheckType
        let status: HealthCheckStatus
        let details: HealthCheckDetails?

        // The tests' accessors, not the SDK's.
        var bundleIDs: BundleIdCheckDetails? { if case .bundleId(let details)? = details { details } else { nil } }
        var products: ProductsCheckDetails? { if case .products(let details)? = details { details } else { nil } }
        var offerings: OfferingsCheckDetails? { if case .offeringsProducts(let details)? = details { details } else { nil } }

        enum CodingKeys: String, CodingKey { case name, status, details }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(HealthCheckType.self, forKey: .name)
            status = try container.decode(HealthCheckStatus.self, forKey: .status)
            switch name {
            case .offeringsProducts:
                details = try container.decodeIfPresent(OfferingsCheckDetails.self, forKey: .details).map { .offeringsProducts($0) }
            case .bundleId: details = try container.decodeIfPresent(BundleIdCheckDetails.self, forKey: .details).map { .bundleId($0) }
            case .products: details = try container.decodeIfPresent(ProductsCheckDetails.self, forKey: .details).map { .products($0) }
            default: details = nil
            }
        }
    }

    struct HealthReport: Decodable {
        let status: HealthCheckStatus
        let projectId: String?
        let appId: String?
        let checks: [HealthCheck]
    }

    static func ios(_ body: String) throws -> HealthReport {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(HealthReport.self, from: Data(body.utf8))
    }

    /// `validate()`'s verdict: the first failed check is the error reported; otherwise healthy, with the warnings.
    enum Verdict: Equatable {
        case unhealthy(HealthCheckType)
        case healthy(warnings: [HealthCheckType])
    }

    static func verdict(_ report: HealthReport) -> Verdict {
        if let failed = report.checks.first(where: { $0.status == .failed }) { return .unhealthy(failed.name) }
        return .healthy(warnings: report.checks.filter { $0.status == .warning }.map(\.name))
    }
}
