import RedeemCore

extension APIHandlers {
    func getCustomerCenterConfig(
        _ input: Operations.GetCustomerCenterConfig.Input
    ) async throws -> Operations.GetCustomerCenterConfig.Output {
        let appID = try context.sdkAppID()
        _ = try AppUserID.parse(input.path.appUserId)
        let texts = deps.customerCenterLanguages.texts(preferredLocales: input.headers.xPreferredLocales)
        let content = try await deps.customerCenter.content(appID: appID, texts: texts)
        typealias Schemas = Components.Schemas
        // Buttons take the accent, labelled white or black as the pages label theirs.
        func colors(_ palette: BrandPalette) -> Schemas.CustomerCenterColors {
            .init(
                accentColor: palette.accent?.hex, textColor: palette.foreground?.hex, backgroundColor: palette.background?.hex,
                buttonTextColor: palette.accent.map { Contrast.label(on: $0).hex }, buttonBackgroundColor: palette.accent?.hex)
        }
        func screen(_ screen: CustomerCenterContent.Screen, _ type: Schemas.CustomerCenterScreen._TypePayload) -> Schemas.CustomerCenterScreen {
            .init(
                _type: type, title: screen.title, subtitle: screen.subtitle,
                paths: screen.paths.map { path in
                    switch path.action {
                    case .cancelSubscription: .init(id: path.id, title: path.title, _type: .cancel)
                    case .open(let url): .init(id: path.id, title: path.title, _type: .customUrl, url: url, openMethod: .external)
                    }
                })
        }
        let center = Schemas.CustomerCenter(
            appearance: .init(light: colors(content.branding.light), dark: colors(content.branding.dark)),
            screens: .init(management: screen(content.management, .management), noActive: screen(content.noActive, .noActive)),
            localization: .init(locale: content.locale, localizedStrings: .init(additionalProperties: content.sdkStrings)),
            // An empty address hides the SDKs' "Contact support" (iOS builds no mailto: for it; Android reads it as none).
            // The purchase history (iOS only) lists the CustomerInfo the SDK holds, web purchases as "Web".
            support: .init(
                email: content.supportEmail ?? "", shouldWarnCustomerToUpdate: false, displayPurchaseHistoryLink: true,
                displayVirtualCurrencies: false,
                supportTickets: content.supportTickets ? .init(allowCreation: true, customerType: .all) : nil),
            changePlans: [])
        return .ok(.init(body: .json(.init(customerCenter: center))))
    }

    /// The Customer Center's support form, sent on as an e-mail to the app's support address.
    func createSupportTicket(_ input: Operations.CreateSupportTicket.Input) async throws -> Operations.CreateSupportTicket.Output {
        let appID = try context.sdkAppID()
        guard case .json(let body) = input.body else { throw APIError.badRequest("A JSON body is required.") }
        try await deps.supportTickets.send(
            appID: appID, appUserID: try AppUserID.parse(body.appUserId), customerEmail: body.customerEmail,
            description: body.issueDescription, ip: context.remoteIP)
        return .ok(.init(body: .json(.init(sent: true))))
    }
}
