import Foundation

/// The parts of a created Checkout Session a caller needs: redirect the buyer to `url`.
public struct StripeCreatedCheckoutSession: Sendable, Hashable, Decodable {
    public let id: String
    public let url: String
}

/// A Stripe error body `{"error": {"type", "code", "message", "param"}}`, with the HTTP status.
public struct StripeAPIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `api_error`, `card_error`, `idempotency_error`, `invalid_request_error`, or the
    /// local `unexpected_response` when the body was not a Stripe error.
    public let type: String
    public let code: String?
    public let message: String?
    public let param: String?
    public let statusCode: Int

    public init(type: String, code: String? = nil, message: String? = nil, param: String? = nil, statusCode: Int) {
        self.type = type
        self.code = code
        self.message = message
        self.param = param
        self.statusCode = statusCode
    }

    public var description: String {
        "Stripe \(statusCode) \(type)" + (code.map { " (\($0))" } ?? "") + (message.map { ": \($0)" } ?? "")
    }

    /// Decodes an error body; anything else becomes `unexpected_response`.
    public init(statusCode: Int, body: some DataProtocol) {
        if let e = try? JSONDecoder().decode(ErrorEnvelope.self, from: Data(body)).error {
            self.init(type: e.type, code: e.code, message: e.message, param: e.param, statusCode: statusCode)
        } else {
            self.init(type: "unexpected_response", message: "not a Stripe error body", statusCode: statusCode)
        }
    }
}

private struct ErrorEnvelope: Decodable {
    struct Body: Decodable {
        let type: String
        let code: String?
        let message: String?
        let param: String?
    }
    let error: Body
}

extension StripeCheckoutRequest {
    /// The created session from a 2xx response, else the Stripe error.
    public static func decodeResponse(
        statusCode: Int, body: some DataProtocol
    ) throws(StripeAPIError) -> StripeCreatedCheckoutSession {
        guard (200..<300).contains(statusCode) else { throw StripeAPIError(statusCode: statusCode, body: body) }
        guard let session = try? JSONDecoder().decode(StripeCreatedCheckoutSession.self, from: Data(body)) else {
            throw StripeAPIError(type: "unexpected_response", message: "no session id and url", statusCode: statusCode)
        }
        return session
    }
}
