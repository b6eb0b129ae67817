import Foundation
import Hummingbird
import RedeemCore

/// Signing in to the console (password, then the authenticator code when enrolled) and out. These pages come before a
/// full session exists, so they sit outside `ConsoleSessionMiddleware`; the sign-in form's token rides in a cookie.
struct ConsoleSignInController {
    let service: ConsoleService
    let pages: ConsolePages
    /// Cookies are `Secure` whenever the public URL is https.
    let secureCookies: Bool

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/console/sign-in", use: signInForm)
        router.post("/console/sign-in", use: signIn)
        router.get("/console/sign-in/code", use: codeForm)
        router.post("/console/sign-in/code", use: code)
        router.post("/console/sign-out", use: signOut)
    }

    @Sendable func signInForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        if let session = try await anySession(request) { return ConsolePages.redirect(session.awaitingCode ? "/console/sign-in/code" : "/console") }
        var page = signInPage(error: nil, email: "", status: .ok)
        // After a password reset (`TeamLinksController`): a fixed sentence, so a link cannot put words here.
        if request.uri.queryParameters["reset"] == "done" {
            page = signInPage(error: nil, email: "", status: .ok, notice: "Your password is changed. Sign in with it.")
        }
        return page
    }

    @Sendable func signIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = try await FormBody.parse(request, limit: 8 * 1024)
        let email = form["email"] ?? ""
        // A page whose form cookie is gone (a restarted browser, one that kept none): the form again, not a dead end.
        guard FormBody.carriesToken(form, request.cookies[ConsoleCookies.signInForm]?.value) else {
            return signInPage(error: Self.staleForm, email: email, status: .forbidden)
        }
        do {
            let signedIn = try await service.signIn(email: email, password: form["password"] ?? "", ip: context.remoteIP)
            var response = ConsolePages.redirect(signedIn.awaitingCode ? "/console/sign-in/code" : "/console")
            response.setCookie(sessionCookie(signedIn.token))
            response.setCookie(expired(ConsoleCookies.signInForm))
            return response
        } catch is SignInRefused {
            return signInPage(error: "The e-mail or password is wrong.", email: email, status: .unauthorized)
        } catch is OperatorDisabled {
            return signInPage(
                error: "This account is disabled. Ask an owner of the console to enable it on the Team page.", email: email, status: .forbidden)
        } catch let limited as RateLimited {
            var response = signInPage(error: "Too many attempts. Wait a minute, then try again.", email: email, status: .tooManyRequests)
            response.headers[.retryAfter] = APIError.from(limited)?.headers[.retryAfter]
            return response
        }
    }

    /// The second step for operators with an authenticator app.
    @Sendable func codeForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let session = try await anySession(request) else { return ConsolePages.redirect("/console/sign-in") }
        guard session.awaitingCode else { return ConsolePages.redirect("/console") }
        return pages.render("console-code", status: .ok, session: session, SignInPage())
    }

    @Sendable func code(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let session = try await anySession(request), session.awaitingCode else { return ConsolePages.redirect("/console/sign-in") }
        let form = try await FormBody.parse(request, limit: 8 * 1024)
        try FormBody.requireToken(form, session.csrf, expired: "The form has expired; reload the page and try again.")
        do {
            try await service.verifyCode(session, code: form["code"] ?? "", ip: context.remoteIP)
            return ConsolePages.redirect("/console")
        } catch is SignInRefused {
            return pages.render("console-code", status: .unauthorized, session: session, SignInPage(error: "That code is wrong or was already used."))
        } catch let limited as RateLimited {
            var response = pages.render(
                "console-code", status: .tooManyRequests, session: session, SignInPage(error: "Too many attempts. Wait a minute, then try again."))
            response.headers[.retryAfter] = APIError.from(limited)?.headers[.retryAfter]
            return response
        }
    }

    /// Ends the session (a form with its token); without a live session it only clears the cookie.
    @Sendable func signOut(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = try await FormBody.parse(request, limit: 8 * 1024)
        if let session = try await anySession(request) {
            try FormBody.requireToken(form, session.csrf, expired: "The form has expired; reload the page and try again.")
            try await service.signOut(session)
        }
        var response = ConsolePages.redirect("/console/sign-in")
        response.setCookie(expired(ConsoleCookies.session))
        return response
    }

    /// Any live session, the ones waiting for their code included.
    func anySession(_ request: Request) async throws -> ConsoleSession? {
        guard let token = request.cookies[ConsoleCookies.session]?.value else { return nil }
        return try await service.session(token: token)
    }

    func sessionCookie(_ token: String) -> Cookie {
        Cookie(name: ConsoleCookies.session, value: token, path: "/console", secure: secureCookies, httpOnly: true, sameSite: .strict)
    }

    func expired(_ name: String) -> Cookie {
        Cookie(name: name, value: "", maxAge: 0, path: "/console", secure: secureCookies, httpOnly: true, sameSite: .strict)
    }

    static var staleForm: String { "This page had been open too long. Type your password again and send it." }

    func signInPage(error: String?, email: String, status: HTTPResponse.Status, notice: String? = nil) -> Response {
        let formToken = SecretToken.generate(byteCount: 16)
        let cookie = Cookie(
            name: ConsoleCookies.signInForm, value: formToken, path: "/console", secure: secureCookies, httpOnly: true, sameSite: .strict)
        return pages.render(
            "console-sign-in", status: status, session: nil, cookies: [cookie],
            SignInPage(csrf: formToken, email: email, error: error, notice: notice))
    }
}

/// The sign-in and code steps: the address as typed and what was wrong. Before a session, the form's token is the
/// page's own (`csrf`); on the code step it is the session's, from the chrome.
struct SignInPage: PageModel {
    var csrf: String?
    var email: String?
    var error: String?
    var notice: String?
}
