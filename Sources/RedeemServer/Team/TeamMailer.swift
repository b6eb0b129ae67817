import Foundation
import Logging
import RedeemCore
import RedeemMail
import RedeemStore
import ServiceLifecycle

/// Sends the team's e-mails (invitations, password resets) from their own outbox, as `EmailDeliveryWorker` sends the
/// purchase e-mails: leased rows, retried with the same backoff, and each link minted as its e-mail is composed (only
/// its hash is stored). They are the instance's mail, about no app or purchase, so they are not in `email_outbox`.
public final class TeamMailer: Service, Sendable {
    let store: any TeamStore
    let client: SMTPClient
    let templates: Templates
    let clock: any RedeemClock
    let logger: Logger
    let publicURL: URL
    private let loop: QueueWorkerLoop

    init(store: any TeamStore, settings: MailSettings, templates: Templates, clock: any RedeemClock, publicURL: URL, logger: Logger) {
        self.store = store
        self.client = SMTPClient(configuration: settings.smtp)
        self.templates = templates
        self.clock = clock
        self.publicURL = publicURL
        self.logger = logger
        self.loop = QueueWorkerLoop(interval: .seconds(1))
    }

    func wake() { loop.wakeup.yield() }

    public func run() async throws {
        await loop.run { [self] in await self.drain() }
    }

    @discardableResult
    public func drain() async -> Int {
        await ConcurrentDrain.run(limit: 2) { free in
            do {
                return try await store.claimDueTeamEmails(now: clock.now(), lease: 120, limit: free)
            } catch {
                logger.error("team e-mail queue unavailable", metadata: ["error": "\(error)"])
                return []
            }
        } work: { [self] email in
            await send(email)
        }
    }

    func send(_ email: TeamEmail) async -> Bool {
        let now = clock.now()
        do {
            guard let message = try await compose(email, now: now) else {
                try await store.markTeamEmailSent(id: email.id, at: now, skipped: "no longer wanted")
                return false
            }
            try await client.send(message, messageID: "\(email.id)@redeem")
            try await store.markTeamEmailSent(id: email.id, at: clock.now(), skipped: nil)
            logger.info("team e-mail sent", metadata: ["email_id": "\(email.id)", "kind": "\(email.kind.rawValue)"])
            return true
        } catch {
            if Task.isCancelled { return false }
            let attempts = email.attempts + 1
            let retryAt = EmailDeliveryWorker.retryAt(after: error, attempts: attempts, now: now)
            logger.warning("team e-mail not sent", metadata: ["email_id": "\(email.id)", "attempt": "\(attempts)", "error": "\(error)"])
            try? await store.markTeamEmailFailed(id: email.id, error: "\(error)", retryAt: retryAt, at: now)
            return false
        }
    }

    /// The message, with its link minted now; nil when the invitation is no longer pending or the operator is disabled.
    func compose(_ email: TeamEmail, now: Date) async throws -> MailMessage? {
        let token = SecretToken.generate(byteCount: 32)
        switch email.kind {
        case .invitation:
            guard let invitation = try await store.mintInvitationToken(id: email.subjectID, tokenHash: SecretToken.hash(token), now: now)
            else { return nil }
            let mail = InvitationEmail(
                email: invitation.email, role: invitation.role.rawValue, roleWords: TeamPresenter.roleWords(invitation.role),
                invitedBy: TeamPresenter.actorEmail(invitation.invitedBy), expiresIn: TimeLeft.words(until: invitation.expiresAt, from: now),
                acceptURL: TeamService.invitationURL(publicURL, token: token))
            return try message(to: invitation.email, subject: "You're invited to the Redeem console", template: "email-invitation", mail)
        case .passwordReset:
            let expires = now.addingTimeInterval(TeamRules.resetLinkLifetime)
            guard
                let address = try await store.insertPasswordResetToken(
                    tokenHash: SecretToken.hash(token), operatorID: email.subjectID, now: now, expiresAt: expires)
            else { return nil }
            let mail = PasswordResetEmail(
                email: address, expiresIn: TimeLeft.words(seconds: Int(TeamRules.resetLinkLifetime)),
                resetURL: TeamService.resetURL(publicURL, token: token))
            return try message(to: address, subject: "Reset your Redeem console password", template: "email-password-reset", mail)
        }
    }

    private func message(to recipient: String, subject: String, template: String, _ model: some PageModel) throws -> MailMessage {
        let from = client.configuration.from.flatMap { try? MailAddress($0.address, name: "Redeem console") }
        return try MailMessage(
            from: from, to: [MailAddress(recipient)], subject: subject, text: templates.render("\(template).txt", model),
            html: templates.render("\(template).html", model))
    }
}

/// The invitation e-mail: who invited whom, as what, and the link.
struct InvitationEmail: PageModel {
    let email: String
    let role: String
    let roleWords: String
    let invitedBy: String
    let expiresIn: String
    let acceptURL: String
}

/// The password-reset e-mail.
struct PasswordResetEmail: PageModel {
    let email: String
    let expiresIn: String
    let resetURL: String
}
