import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// The team's pages before a session: an invitation's link (its form, then the new operator signed in), "Forgot your
/// password?" and a reset link's form. Opening a link shows a form and uses nothing; only its POST does. Answers are
/// HTML pages, refusals included; the forms carry a token tied to a cookie set with them.
struct TeamLinksController {
    let service: TeamService
    let console: ConsoleService
    let pages: ConsolePages
    let secureCookies: Bool

    static let formCookie = "redeem_console_team_form"

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/console/invitation/{token}", use: invitation)
        router.post("/console/invitation/{token}", use: accept)
        router.get("/console/reset", use: resetRequestForm)
        router.post("/console/reset", use: requestReset)
        router.get("/console/reset/{token}", use: resetForm)
        router.post("/console/reset/{token}", use: reset)
    }

    @Sendable func invitation(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try context.parameters.require("token")
        do {
            let (invitation, state) = try await service.invitation(token: token, ip: context.remoteIP)
            guard let invitation, state == .pending else { return refused(state) }
            return invitationForm(invitation, token: token, name: "", error: nil, status: .ok)
        } catch let limited as RateLimited {
            return tooMany(limited)
        }
    }

    @Sendable func accept(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try context.parameters.require("token")
        let form = try await FormBody.parse(request, limit: 8 * 1024)
        let password = form["password"] ?? ""
        guard carriesItsToken(request, form) else {
            let (invitation, state) = try await service.invitation(token: token, ip: context.remoteIP)
            guard let invitation, state == .pending else { return refused(state) }
            return invitationForm(invitation, token: token, name: form["name"] ?? "", error: ConsoleSignInController.staleForm, status: .forbidden)
        }
        do {
            let op = try await service.accept(
                token: token, name: form["name"] ?? "", password: password, confirmation: form["confirm"] ?? "", ip: context.remoteIP)
            // Signed in as sign-in does it: the code step and enrolment rules apply as for anyone.
            guard let signedIn = try? await console.signIn(email: op.email, password: password, ip: context.remoteIP) else {
                return ConsolePages.redirect("/console/sign-in")
            }
            var response = ConsolePages.redirect(signedIn.awaitingCode ? "/console/sign-in/code" : "/console")
            response.setCookie(cookie(ConsoleCookies.session, signedIn.token))
            response.setCookie(cookie(Self.formCookie, "", maxAge: 0))
            return response
        } catch let unusable as InvitationUnusable {
            return refused(unusable.state)
        } catch let error as ValidationError {
            let (invitation, state) = try await service.invitation(token: token, ip: context.remoteIP)
            guard let invitation, state == .pending else { return refused(state) }
            return invitationForm(
                invitation, token: token, name: form["name"] ?? "", error: Self.describe(error), status: .unprocessableContent)
        } catch let error as StoreError where error.isConflict {
            return pages.render(
                "console-team-invitation", status: .conflict, session: nil,
                InvitationPage(
                    csrf: nil, action: nil, email: nil, roleWords: nil, name: "", error: nil, refusalTitle: "Already on the team",
                    refusal: error.description + "."))
        } catch let limited as RateLimited {
            return tooMany(limited)
        }
    }

    @Sendable func resetRequestForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        resetRequestPage(email: "", sent: false, error: nil, status: .ok)
    }

    /// The same answer whether or not an operator has the address.
    @Sendable func requestReset(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = try await FormBody.parse(request, limit: 8 * 1024)
        let email = form["email"] ?? ""
        guard carriesItsToken(request, form) else {
            return resetRequestPage(
                email: email, sent: false, error: "This page had been open too long. Check your address and send it again.", status: .forbidden)
        }
        guard service.mailOn else { return resetRequestPage(email: email, sent: false, error: nil, status: .serviceUnavailable) }
        do {
            try await service.requestReset(email: email, ip: context.remoteIP)
        } catch is ValidationError {
            return resetRequestPage(
                email: email, sent: false, error: "Enter the e-mail address you sign in with, like name@example.com.", status: .unprocessableContent)
        } catch let limited as RateLimited {
            var response = resetRequestPage(
                email: email, sent: false, error: "Too many tries. Wait a minute, then try again.", status: .tooManyRequests)
            response.headers[.retryAfter] = APIError.from(limited)?.headers[.retryAfter]
            return response
        }
        return resetRequestPage(email: email, sent: true, error: nil, status: .ok)
    }

    @Sendable func resetForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try context.parameters.require("token")
        do {
            guard try await service.resetLinkIsLive(token: token, ip: context.remoteIP) else { return resetExpired() }
            return resetPasswordPage(token: token, error: nil, status: .ok)
        } catch let limited as RateLimited {
            return tooMany(limited)
        }
    }

    @Sendable func reset(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try context.parameters.require("token")
        let form = try await FormBody.parse(request, limit: 8 * 1024)
        guard carriesItsToken(request, form) else {
            return resetPasswordPage(token: token, error: ConsoleSignInController.staleForm, status: .forbidden)
        }
        do {
            guard
                try await service.completeReset(
                    token: token, password: form["password"] ?? "", confirmation: form["confirm"] ?? "", ip: context.remoteIP) != nil
            else { return resetExpired() }
            var response = ConsolePages.redirect("/console/sign-in?reset=done")
            response.setCookie(cookie(Self.formCookie, "", maxAge: 0))
            return response
        } catch let error as ValidationError {
            return resetPasswordPage(token: token, error: Self.describe(error), status: .unprocessableContent)
        } catch let limited as RateLimited {
            return tooMany(limited)
        }
    }

    // MARK: pages

    func invitationForm(
        _ invitation: OperatorInvitation, token: String, name: String, error: String?, status: HTTPResponse.Status
    )
        -> Response
    {
        let csrf = SecretToken.generate(byteCount: 16)
        return pages.render(
            "console-team-invitation", status: status, session: nil, cookies: [cookie(Self.formCookie, csrf)],
            InvitationPage(
                csrf: csrf, action: "/console/invitation/\(token)", email: invitation.email, roleWords: TeamPresenter.roleWords(invitation.role),
                name: name, error: error, refusalTitle: nil, refusal: nil))
    }

    func refused(_ state: TeamRules.InvitationState?) -> Response {
        let (title, text) = TeamPresenter.refusal(state)
        return pages.render(
            "console-team-invitation", status: state == nil ? .notFound : .gone, session: nil,
            InvitationPage(csrf: nil, action: nil, email: nil, roleWords: nil, name: "", error: nil, refusalTitle: title, refusal: text))
    }

    func resetRequestPage(email: String, sent: Bool, error: String?, status: HTTPResponse.Status) -> Response {
        let csrf = SecretToken.generate(byteCount: 16)
        return pages.render(
            "console-reset", status: status, session: nil, cookies: [cookie(Self.formCookie, csrf)],
            ResetRequestPage(csrf: csrf, email: email, sent: sent, error: error, mailOn: service.mailOn))
    }

    func resetPasswordPage(token: String, error: String?, status: HTTPResponse.Status) -> Response {
        let csrf = SecretToken.generate(byteCount: 16)
        return pages.render(
            "console-reset-password", status: status, session: nil, cookies: [cookie(Self.formCookie, csrf)],
            ResetPasswordPage(csrf: csrf, action: "/console/reset/\(token)", error: error, expired: false))
    }

    func resetExpired() -> Response {
        pages.render("console-reset-password", status: .gone, session: nil, ResetPasswordPage(csrf: nil, action: nil, error: nil, expired: true))
    }

    func tooMany(_ limited: RateLimited) -> Response {
        var response = pages.render(
            "console-team-invitation", status: .tooManyRequests, session: nil,
            InvitationPage(
                csrf: nil, action: nil, email: nil, roleWords: nil, name: "", error: nil, refusalTitle: "Too many tries",
                refusal: "Wait a minute, then open the link again."))
        response.headers[.retryAfter] = APIError.from(limited)?.headers[.retryAfter]
        return response
    }

    static func describe(_ error: ValidationError) -> String {
        switch error.field {
        case "confirm": "The two passwords differ: type the same password in both fields."
        case "password": "The password \(error.reason)."
        default: "Your name \(error.reason)."
        }
    }

    /// The form's token matches the cookie set with its page (CSRF). When it does not (the page outlived its cookie, or
    /// the browser kept none), nothing is done and the form comes back with a fresh token and what was typed (never a
    /// password).
    func carriesItsToken(_ request: Request, _ form: [String: String]) -> Bool {
        FormBody.carriesToken(form, request.cookies[Self.formCookie]?.value)
    }

    func cookie(_ name: String, _ value: String, maxAge: Int? = nil) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/console", secure: secureCookies, httpOnly: true, sameSite: .strict)
    }
}
