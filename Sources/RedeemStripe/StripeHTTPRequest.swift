import Foundation

/// A fully built HTTP request for the caller's own HTTP client.
public struct StripeHTTPRequest: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public let method: String
    public let url: URL
    public let headers: [String: String]
    /// The form-encoded body.
    public let body: String

    public var bodyData: Data { Data(body.utf8) }

    /// Method and URL only: headers hold the secret key and the body holds customer data.
    public var description: String { "\(method) \(url.absoluteString)" }
    public var debugDescription: String { description }
}
