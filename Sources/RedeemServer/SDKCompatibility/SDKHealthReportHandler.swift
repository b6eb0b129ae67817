import RedeemCore

extension APIHandlers {
    func getSDKHealthReport(_ input: Operations.GetSDKHealthReport.Input) async throws -> Operations.GetSDKHealthReport.Output {
        let appID = try context.sdkAppID()
        _ = try AppUserID.parse(input.path.appUserId)
        let report = try await deps.sdkHealth.report(appID: appID, sdkBundleID: input.headers.xClientBundleID)
        typealias Schemas = Components.Schemas
        func status(_ status: SDKHealthReport.Status) -> Schemas.SDKHealthStatus {
            switch status {
            case .passed: .passed
            case .warning: .warning
            case .failed: .failed
            }
        }
        // Redeem reads no App Store Connect: every product's store status is unknown to it.
        func details(_ check: SDKHealthReport.Check) -> Schemas.SDKHealthCheckDetails? {
            if let ids = check.bundleIDs { return .init(sdkBundleId: ids.sdk, appBundleId: ids.app) }
            if let products = check.products {
                return .init(
                    products: products.map { .init(identifier: $0.identifier, title: $0.title, status: .couldNotCheck, description: $0.description) })
            }
            if let offerings = check.offerings {
                return .init(
                    offerings: offerings.map { offering in
                        .init(
                            identifier: offering.identifier, status: status(offering.status),
                            packages: offering.packages.map {
                                .init(
                                    identifier: $0.identifier, status: .couldNotCheck, description: $0.description,
                                    productIdentifier: $0.productIdentifier, productTitle: $0.productTitle)
                            })
                    })
            }
            return nil
        }
        func name(_ name: SDKHealthReport.Check.Name) -> Schemas.SDKHealthCheck.NamePayload {
            switch name {
            case .apiKey: .apiKey
            case .bundleID: .bundleId
            case .products: .products
            case .offerings: .offerings
            case .offeringsProducts: .offeringsProducts
            }
        }
        let checks = report.checks.map { Schemas.SDKHealthCheck(name: name($0.name), status: status($0.status), details: details($0)) }
        // No project or app ID: the SDK would link them to RevenueCat's dashboard.
        return .ok(.init(body: .json(.init(status: status(report.status), projectId: nil, appId: nil, checks: checks))))
    }
}
