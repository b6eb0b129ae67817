import Foundation
import Logging
import RedeemCore
import RedeemMail

/// The Customer Center's "Create a support ticket" (both SDKs): the buyer's message, e-mailed at once to the app's
/// support address with the buyer's address to reply to. Offered only where it can be sent: the app has a support
/// address and this server sends e-mail. Nothing is stored, so nothing of it is left to erase: the message is sent
/// now, or the SDK says it failed and the buyer sends it again.
struct SupportTicketService: Sendable {
    let store: any CustomerCenterStore
    let limiter: RateLimiter
    /// Nil when this server sends no e-mail.
    let mail: MailSettings?
    let logger: Logger

    /// The longest message taken; the SDKs' form stops at 250 characters.
    static let maxDescription = 2000

    /// Whether the Customer Center offers the form for `app`.
    func offered(for app: App) -> Bool { mail != nil && app.supportEmail != nil }

    func send(appID: String, appUserID: AppUserID, customerEmail: String, description: String, ip: String?) async throws {
        let email = customerEmail.trimmingCharacters(in: .whitespaces)
        guard Formats.isEmail(email) else {
            throw ValidationError(field: "customer_email", reason: "must be an e-mail address such as name@example.com")
        }
        let message = description.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !message.isEmpty, message.count <= Self.maxDescription else {
            throw ValidationError(field: "issue_description", reason: "must be 1–\(Self.maxDescription) characters")
        }
        let app = try await store.app(id: appID)
        guard let mail, let support = app.supportEmail else {
            throw APIError.conflict("\(app.name) takes no support tickets: it has no support address, or this server sends no e-mail.")
        }
        try await limiter.supportTicket(ip: ip, appID: appID, user: appUserID)
        let mailMessage = try MailMessage(
            from: mail.smtp.from.flatMap { try? MailAddress($0.address, name: "\(app.name) Customer Center") },
            to: [MailAddress(support)], replyTo: MailAddress(email), subject: "Support request from \(app.name)",
            text: Self.text(app: app, appUserID: appUserID, email: email, message: message))
        do {
            try await SMTPClient(configuration: mail.smtp).send(mailMessage, messageID: "\(Identifier.make(prefix: "tkt"))@redeem")
        } catch {
            // The app and the failure, never the buyer's address or message.
            logger.warning("support ticket not sent", metadata: ["app_id": "\(appID)", "error": "\(error)"])
            throw error.isTransient
                ? APIError(.unavailable, "The message could not be sent just now; try again in a moment.")
                : APIError(.upstreamRefused, "The support address's mail server refused the message.")
        }
        RedeemMetrics.supportTicket()
    }

    /// The e-mail's text: the message as written, then who sent it, so support can find the customer.
    static func text(app: App, appUserID: AppUserID, email: String, message: String) -> String {
        """
        A customer wrote from \(app.name)'s Customer Center:

        \(message)

        Reply to this e-mail to answer them (\(email)).
        App user ID: \(appUserID.rawValue)
        """
    }
}
