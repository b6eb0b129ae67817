import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import RedeemCore
import RedeemStore

/// Resolves `Authorization: Bearer <key>` to a stored key. Keys are looked up by their SHA-256,
/// so the plaintext is never compared or kept.
struct AuthMiddleware: RouterMiddleware {
    let keys: KeyCache

    func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization], header.count > 7,
            header.prefix(7).lowercased() == "bearer "
        else {
            throw APIError.unauthenticated
        }
        // Keys never contain blanks: drop any around (or in) the presented value.
        let presented = String(decoding: header.utf8.dropFirst(7).filter { $0 != 0x20 && $0 != 0x09 }, as: UTF8.self)
        guard !presented.isEmpty, let key = try await keys.key(hash: SecretToken.hash(presented)) else {
            throw APIError.unauthenticated
        }
        var context = context
        context.key = key
        return try await next(request, context)
    }
}

extension AppRequestContext {
    /// The app a public or secret key belongs to, for SDK routes.
    func sdkAppID() throws -> String {
        guard let key, let appID = key.appID else {
            throw APIError.forbidden("This route needs an app's public SDK key or secret key.")
        }
        return appID
    }

    /// The app of a secret key, for the server API.
    func secretAppID() throws -> String {
        guard let key, key.kind == .secret, let appID = key.appID else {
            throw APIError.forbidden("This route needs the app's secret key; public SDK keys cannot use it.")
        }
        return appID
    }

    /// Admin routes: the instance admin key, or the named app's own secret key.
    func requireAdmin(appID: String?) throws {
        guard let key else { throw APIError.unauthenticated }
        switch key.kind {
        case .admin: return
        case .secret where appID != nil && key.appID == appID: return
        case .secret: throw APIError.forbidden("A secret key reaches only its own app; this route needs the admin key.")
        case .publicSandbox, .publicProduction: throw APIError.forbidden("Public SDK keys cannot reach admin routes.")
        }
    }
}
