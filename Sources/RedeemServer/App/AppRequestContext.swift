import Foundation
import Hummingbird
import RedeemCore

/// The request context of every route: the core context plus the authenticated key, if any.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by `AuthMiddleware` on authenticated routes.
    public var key: APIKey?
    /// The client's IP address, for rate limits: the peer's, or the one a trusted proxy names (`ForwardedForMiddleware`);
    /// nil when unknown (e.g. in router tests).
    public var remoteIP: String?
    /// A JSON route's body as it arrived, collected by `JSONBodyMiddleware` (the purchase API fingerprints it).
    var jsonBody: ByteBuffer?
    /// Set by `ConsoleSessionMiddleware` on the console's signed-in pages, for `ConsoleContext`.
    var console: ConsoleRequest?
    /// Set by `PortalSessionMiddleware` on the portal's signed-in pages, for `PortalContext`.
    var portal: PortalRequest?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteIP = source.channel.remoteAddress?.ipAddress
    }

    public var requestDecoder: JSONDecoder { JSONCoding.decoder }

    public var responseEncoder: JSONEncoder { Self.sharedEncoder }
}
