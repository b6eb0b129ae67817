import Foundation
import Hummingbird
import RedeemCore
import RedeemQR

/// The operator's own page: two-factor sign-in, on or off. Its group lets an owner who must enrol in (`enrolling`).
struct ConsoleAccountController {
    let service: ConsoleService
    let pages: ConsolePages

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/console/account", use: account)
        router.post("/console/account/two-factor/start", use: startTwoFactor)
        router.post("/console/account/two-factor/confirm", use: confirmTwoFactor)
        router.post("/console/account/two-factor/disable", use: disableTwoFactor)
    }

    @Sendable func account(_ request: Request, context: ConsoleContext) async throws -> Response {
        accountPage(context, status: .ok, AccountPage.Setup?.none)
    }

    /// Shows a new secret as a QR code and as text, with the field for the first code.
    @Sendable func startTwoFactor(_ request: Request, context: ConsoleContext) async throws -> Response {
        let secret = try await service.startEnrolment(context.session)
        return accountPage(context, status: .ok, try setupValues(secret: secret, email: context.session.operator.email))
    }

    @Sendable func confirmTwoFactor(_ request: Request, context: ConsoleContext) async throws -> Response {
        do {
            try await service.confirmEnrolment(context.session, code: context.form["code"] ?? "", ip: context.remoteIP)
            return ConsolePages.redirect("/console/account")
        } catch is SignInRefused {
            let setup = try setupValues(secret: context.session.totpSecret ?? "", email: context.session.operator.email)
            return accountPage(
                context, status: .unauthorized, setup, error: "That code does not match. Check the time on your phone and try the newest code.")
        }
    }

    @Sendable func disableTwoFactor(_ request: Request, context: ConsoleContext) async throws -> Response {
        do {
            try await service.disableTwoFactor(context.session, code: context.form["code"] ?? "", ip: context.remoteIP)
            return ConsolePages.redirect("/console/account")
        } catch is SignInRefused {
            return accountPage(context, status: .unauthorized, nil, error: "That code does not match.")
        }
    }

    func setupValues(secret: String, email: String) throws -> AccountPage.Setup {
        let url = TwoFactor.authenticatorURL(secret: secret, email: email)
        return AccountPage.Setup(
            typedKey: TwoFactor.typedKey(secret: secret, email: email),
            qrSVG: try QRCode(encoding: url).svg(label: "QR code to scan with an authenticator app"))
    }

    func accountPage(_ context: ConsoleContext, status: HTTPResponse.Status, _ setup: AccountPage.Setup?, error: String? = nil) -> Response {
        let session = context.session
        let values = AccountPage(
            settingUp: setup != nil, typedKey: setup?.typedKey, qrSVG: setup?.qrSVG, error: error,
            twoFactorOn: session.operator.twoFactorEnabledAt != nil, enabledAt: session.operator.twoFactorEnabledAt.map(ConsolePresenter.date),
            mustEnrol: session.mustEnrol, mayTurnOff: !(service.ownersNeedTwoFactor && session.operator.role == .owner))
        return pages.page("console-account", status: status, context: context, values)
    }
}

/// The operator's own page: two-factor on or off, or being set up.
struct AccountPage: PageModel {
    /// A new secret to scan or type.
    struct Setup {
        let typedKey: String
        let qrSVG: String
    }

    let settingUp: Bool
    let typedKey: String?
    let qrSVG: String?
    let error: String?
    let twoFactorOn: Bool
    let enabledAt: String?
    let mustEnrol: Bool
    let mayTurnOff: Bool
}
