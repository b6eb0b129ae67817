import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// The console's Team page: everyone sees who is on the team; owners invite, revoke and resend invitations, disable and
/// enable operators, change roles and reset two-factor sign-in. Each change redirects back with a fixed notice.
struct TeamController {
    let service: TeamService
    let pages: ConsolePages
    let clock: any RedeemClock

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/console/team", use: team)
        router.post("/console/team/invitations", use: invite)
        router.post("/console/team/invitations/{invitation_id}/resend", use: resend)
        router.post("/console/team/invitations/{invitation_id}/revoke", use: revoke)
        router.post("/console/team/operators/{operator_id}/disable") { try await change(.disable, .disabled, $0, $1) }
        router.post("/console/team/operators/{operator_id}/enable") { try await change(.enable, .enabled, $0, $1) }
        router.post("/console/team/operators/{operator_id}/reset-two-factor") { try await change(.resetTwoFactor, .twoFactor, $0, $1) }
        router.post("/console/team/operators/{operator_id}/role", use: changeRole)
    }

    @Sendable func team(_ request: Request, context: ConsoleContext) async throws -> Response {
        let notice = request.uri.queryParameters["notice"].flatMap { TeamNotice(rawValue: String($0)) }?.text
        return try await render(context, status: .ok, notice: notice)
    }

    @Sendable func invite(_ request: Request, context: ConsoleContext) async throws -> Response {
        let email = context.form["email"] ?? ""
        guard let role = OperatorRole(rawValue: context.form["role"] ?? "") else {
            throw APIError.badRequest("Choose a role: owner or support.", field: "role")
        }
        do {
            let invited = try await service.invite(email: email, role: role, by: context.session)
            if let link = invited.link { return try await render(context, status: .created, typedRole: role, link: link) }
            return ConsolePages.redirect("/console/team?notice=\(TeamNotice.invited.rawValue)")
        } catch let error as ValidationError {
            return try await render(
                context, status: .unprocessableContent, error: "E-mail \(error.reason): type it like name@example.com.", typedEmail: email,
                typedRole: role)
        } catch let error as StoreError where error.isConflict {
            return try await render(context, status: .conflict, error: error.description + ".", typedEmail: email, typedRole: role)
        }
    }

    @Sendable func resend(_ request: Request, context: ConsoleContext) async throws -> Response {
        let invited = try await service.resend(invitationID: try context.parameters.decoded("invitation_id"), by: context.session)
        if let link = invited.link { return try await render(context, status: .ok, link: link) }
        return ConsolePages.redirect("/console/team?notice=\(TeamNotice.resent.rawValue)")
    }

    @Sendable func revoke(_ request: Request, context: ConsoleContext) async throws -> Response {
        _ = try await service.revoke(invitationID: try context.parameters.decoded("invitation_id"), by: context.session)
        return ConsolePages.redirect("/console/team?notice=\(TeamNotice.revoked.rawValue)")
    }

    @Sendable func changeRole(_ request: Request, context: ConsoleContext) async throws -> Response {
        guard let role = OperatorRole(rawValue: context.form["role"] ?? "") else {
            throw APIError.badRequest("Choose a role: owner or support.", field: "role")
        }
        return try await change(.changeRole(role), .role, request, context)
    }

    func change(_ change: TeamRules.Change, _ notice: TeamNotice, _ request: Request, _ context: ConsoleContext) async throws -> Response {
        if change == .disable, context.form["confirm"] != "yes" {
            throw APIError.badRequest("Tick the box to confirm disabling this operator.", field: "confirm")
        }
        _ = try await service.change(change, operatorID: try context.parameters.decoded("operator_id"), by: context.session)
        return ConsolePages.redirect("/console/team?notice=\(notice.rawValue)")
    }

    func render(
        _ context: ConsoleContext, status: HTTPResponse.Status, notice: String? = nil, error: String? = nil, typedEmail: String = "",
        typedRole: OperatorRole = .support, link: String? = nil
    ) async throws -> Response {
        let team = try await service.team()
        let model = TeamPresenter.page(
            team, session: context.session, mailOn: service.mailOn, now: clock.now(), notice: notice, error: error, typedEmail: typedEmail,
            typedRole: typedRole, link: link)
        var response = pages.page("console-team", status: status, context: context, showing: context.apps.first, model)
        if link != nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}
