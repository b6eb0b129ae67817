import Foundation
import RedeemCore
import RedeemMail
import RedeemStore

/// Turns a queued e-mail into a message, minting its redemption link at send time (no stored plaintext token).
struct EmailComposer: Sendable {
    let store: any EmailStore
    let links: RedemptionLinkIssuer
    let templates: Templates
    /// The configured sender (`--mail-from`); each app's e-mails carry the app's name as its display name.
    var sender: MailAddress? = nil

    func compose(_ email: QueuedEmail, now: Date) async throws -> MailMessage {
        let app = try await store.app(id: email.appID)
        switch email.kind {
        case .portalSignIn: return try await portalSignIn(email, app: app, now: now)
        case .renewalOff, .refunded, .paymentFailed, .planChanged, .planScheduled, .renewalReminder, .trialEnding, .renewed, .trialConverted,
            .chargeback:
            return try await notice(email, app: app, now: now)
        case .receipt, .newLink: break
        }
        let purchase = try await store.purchase(appID: email.appID, id: email.purchaseID)
        let product = try await store.product(appID: email.appID, id: purchase.productID)
        let link = try await links.issue(for: purchase, now: now)
        let format = Self.format(email)
        let mail = PurchaseEmail(
            appName: app.name, productName: product.displayName ?? product.id,
            expiresIn: TimeLeft.words(seconds: app.redemptionLinkLifetimeSeconds, texts: format.texts),
            purchaseDate: format.day(purchase.purchaseDate),
            orderNumber: purchase.id, email: email.recipient,
            price: purchase.price.map { $0 == product.price ? format.product(product) : format.price($0) }, iconURL: absoluteIcon(app),
            appStoreURL: app.appStoreURL, playStoreURL: app.playStoreURL, httpsURL: link?.httpsURL, customSchemeURL: link?.customSchemeURL,
            supportEmail: app.supportEmail, manageURL: PortalLinks.home(publicURL: links.publicURL, appID: app.id), legal: LegalLinks(app))
        let name = email.kind == .receipt ? "email-receipt" : "email-new-link"
        let subject = format.texts.format(email.kind == .receipt ? "mail.receipt.subject" : "mail.new_link.subject", ["appName": app.name])
        return try message(email, app: app, subject: subject, template: name, language: format.texts.language, mail)
    }

    /// A one-time portal sign-in link, minted now (only its hash is stored) and valid for 15 minutes from now.
    func portalSignIn(_ email: QueuedEmail, app: App, now: Date) async throws -> MailMessage {
        let texts = Self.format(email).texts
        let mail = PortalSignInEmail(
            appName: app.name, email: email.recipient, expiresIn: TimeLeft.words(seconds: Int(PortalRules.signInLinkLifetime), texts: texts),
            signInURL: try await signInLink(email, app: app, now: now, lifetime: PortalRules.signInLinkLifetime), supportEmail: app.supportEmail,
            iconURL: absoluteIcon(app), legal: LegalLinks(app))
        let subject = texts.format("mail.sign_in.subject", ["appName": app.name])
        return try message(email, app: app, subject: subject, template: "email-portal-sign-in", language: texts.language, mail)
    }

    /// A one-time link that signs the e-mail's recipient in to the portal, minted now: only its hash is stored.
    func signInLink(_ email: QueuedEmail, app: App, now: Date, lifetime: TimeInterval) async throws -> String {
        let token = SecretToken.generate(byteCount: 32)
        let address = PortalRules.normalizedEmail(email.recipient) ?? email.recipient.lowercased()
        try await store.insertPortalSignInToken(
            tokenHash: SecretToken.hash(token), appID: app.id, email: address, now: now, expiresAt: now.addingTimeInterval(lifetime))
        return PortalLinks.signIn(publicURL: links.publicURL, appID: app.id, token: token)
    }

    /// The app's icon as an absolute URL, which mail clients need (`/assets/…` is served here); nil without one.
    func absoluteIcon(_ app: App) -> String? {
        guard let icon = app.iconURL else { return nil }
        if icon.hasPrefix("https://") || icon.hasPrefix("http://") { return icon }
        return links.publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + icon
    }

    /// The e-mail's language (English for one queued without) and its locale for dates and prices: the language's own,
    /// `en_US` for English, as the pages without a region write them.
    static func format(_ email: QueuedEmail) -> BuyerFormat {
        guard let language = email.language, language != "en", let texts = BuyerLanguages.bundled.texts[language] else { return .english }
        return BuyerFormat(locale: Locale(identifier: language.replacingOccurrences(of: "-", with: "_")), texts: texts)
    }

    func message(
        _ email: QueuedEmail, app: App, subject: String, template: String, language: String, _ model: some PageModel
    ) throws -> MailMessage {
        // From the app by name, answered to the app's support address, so a buyer's reply reaches the people who can help.
        let from = sender.flatMap { try? MailAddress($0.address, name: app.name) }
        let replyTo = app.supportEmail.flatMap { try? MailAddress($0) }
        return try MailMessage(
            from: from, to: [MailAddress(email.recipient)], replyTo: replyTo, subject: subject,
            text: templates.render("\(template).txt", model, language: language),
            html: templates.render("\(template).html", model, language: language)
        )
    }
}

/// The receipt and new-link e-mails: the purchase, its link when the app's policy gives one, and the app's ways in.
struct PurchaseEmail: PageModel {
    let appName: String
    let productName: String
    let expiresIn: String
    let purchaseDate: String
    let orderNumber: String
    let email: String
    let price: String?
    /// Absolute, for mail clients.
    let iconURL: String?
    let appStoreURL: String?
    let playStoreURL: String?
    let httpsURL: String?
    let customSchemeURL: String?
    let supportEmail: String?
    let manageURL: String
    let legal: LegalLinks?
}

/// The portal's one-time sign-in e-mail.
struct PortalSignInEmail: PageModel {
    let appName: String
    let email: String
    let expiresIn: String
    let signInURL: String
    let supportEmail: String?
    let iconURL: String?
    let legal: LegalLinks?
}
