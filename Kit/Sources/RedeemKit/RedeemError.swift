import Foundation

/// An error from RedeemKit.
///
/// A struct wrapping a private enum, so new kinds can be added without breaking callers.
/// Compare with the static members: `error == .network`. Equality looks at the kind only.
public struct RedeemError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Kind: String, Sendable, Hashable {
        case network
        case server
        case rateLimited
        case decoding
        case unexpectedResponse
        case cancelled
        case notConfigured
        case invalidAppUserID
        case storage
    }

    private let kind: Kind
    /// The HTTP status code, when the error came from a response.
    public let statusCode: Int?
    /// The backend's JSON `code`, when present.
    public let backendCode: Int?
    /// A human-readable message: the backend's `message`, or a description of the failure.
    public let message: String?
    /// Seconds the server asked to wait (`Retry-After`), for rate limiting.
    public let retryAfter: TimeInterval?

    private init(
        _ kind: Kind,
        statusCode: Int? = nil,
        backendCode: Int? = nil,
        message: String? = nil,
        retryAfter: TimeInterval? = nil
    ) {
        self.kind = kind
        self.statusCode = statusCode
        self.backendCode = backendCode
        self.message = message
        self.retryAfter = retryAfter
    }

    /// The request could not reach the server, after all retries.
    public static let network = RedeemError(.network)
    /// The server answered with an error this SDK does not map to a result case.
    public static let server = RedeemError(.server)
    /// The server kept answering 429 (or asked to wait too long).
    public static let rateLimited = RedeemError(.rateLimited)
    /// A response body could not be decoded.
    public static let decoding = RedeemError(.decoding)
    /// A response decoded but lacked data its `code` requires (e.g. an expired link without the e-mail).
    public static let unexpectedResponse = RedeemError(.unexpectedResponse)
    /// The calling task was cancelled.
    public static let cancelled = RedeemError(.cancelled)
    /// `Redeem.shared` was used before `Redeem.configure`.
    public static let notConfigured = RedeemError(.notConfigured)
    /// An app user ID was blank.
    public static let invalidAppUserID = RedeemError(.invalidAppUserID)
    /// Local storage could not be read or written.
    public static let storage = RedeemError(.storage)

    static func network(_ error: any Error) -> RedeemError {
        RedeemError(.network, message: String(describing: error))
    }

    static func server(status: Int, code: Int?, message: String?) -> RedeemError {
        RedeemError(.server, statusCode: status, backendCode: code, message: message)
    }

    static func rateLimited(status: Int, retryAfter: TimeInterval?) -> RedeemError {
        RedeemError(.rateLimited, statusCode: status, retryAfter: retryAfter)
    }

    static func decoding(_ error: any Error) -> RedeemError {
        RedeemError(.decoding, message: String(describing: error))
    }

    static func unexpectedResponse(status: Int, code: Int?, message: String?) -> RedeemError {
        RedeemError(.unexpectedResponse, statusCode: status, backendCode: code, message: message)
    }

    static func storage(_ error: any Error) -> RedeemError {
        RedeemError(.storage, message: String(describing: error))
    }

    /// A short, stable label without associated values, suitable for metrics.
    public var shortDescription: String { kind.rawValue }

    public var description: String {
        var parts = ["RedeemError.\(kind.rawValue)"]
        if let statusCode { parts.append("status \(statusCode)") }
        if let backendCode { parts.append("code \(backendCode)") }
        if let retryAfter { parts.append("retry after \(retryAfter)s") }
        if let message { parts.append(message) }
        return parts.joined(separator: ", ")
    }

    public static func == (lhs: RedeemError, rhs: RedeemError) -> Bool {
        lhs.kind == rhs.kind
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
    }
}
