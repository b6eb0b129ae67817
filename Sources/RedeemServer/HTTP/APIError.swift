import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// A client-facing error: an HTTP status and a JSON body `{"code", "message", "field"?}`.
///
/// `code` is numeric so RevenueCat's SDKs can read it; the codes are listed in docs/errors.md.
public struct APIError: HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public let code: Int
    public let message: String
    public let field: String?
    public var headers: HTTPFields = [:]
    /// More string fields for the body, e.g. `redeem_url`.
    public var extra: [String: String] = [:]
    /// How a buyer page words it, in the buyer's language (`onPage`); nil for the page's words by status, with
    /// `message` in small type. The API always answers `message`, in English.
    var page: PageWords? = nil

    public init(_ code: ErrorCode, _ message: String, field: String? = nil) {
        self.status = HTTPResponse.Status(code: code.status)
        self.code = code.rawValue
        self.message = message
        self.field = field
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var object: [String: Any] = ["code": code, "message": message]
        for (name, value) in extra { object[name] = value }
        if let field { object["field"] = field }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension APIError {
    /// An error the framework raised (unknown route, body too large…), in our body format.
    init(framework status: HTTPResponse.Status, message: String?, field: String? = nil) {
        let code: ErrorCode =
            switch status.code {
            case 404: .notFound
            case 500...: .internalError
            default: .malformedRequest
            }
        self.init(code, message ?? status.reasonPhrase, field: field)
        self.status = status
    }

    public static func validation(_ error: ValidationError) -> APIError {
        APIError(.invalidField, "\(error.field) \(error.reason)", field: error.field)
    }
    public static func badRequest(_ message: String, field: String? = nil) -> APIError {
        APIError(.malformedRequest, message, field: field)
    }
    public static func notFound(_ message: String) -> APIError { APIError(.notFound, message) }
    public static func conflict(_ message: String) -> APIError { APIError(.conflict, message) }
    public static let unauthenticated = APIError(.unauthenticated, "Missing or invalid API key: send Authorization: Bearer <key>.")
    public static func forbidden(_ message: String) -> APIError { APIError(.forbidden, message) }
    public static func invalidAppUserID(_ error: ValidationError) -> APIError {
        APIError(.invalidAppUserID, "Invalid app user ID: \(error.reason).", field: "app_user_id").onPage("error.detail.account_link")
    }

    /// Maps any thrown error to what a client sees; nil for unexpected failures (500).
    static func from(_ error: any Error) -> APIError? {
        switch error {
        case let error as APIError: return error
        case let error as CheckoutError:
            switch error {
            case .alreadyOwned(let product) where product.type == .subscription:
                return .conflict(error.message).onPage(
                    "error.detail.already_subscribed", ["product": product.displayName ?? product.id], advice: "error.advice.done")
            case .alreadyOwned(let product):
                return .conflict(error.message).onPage(
                    "error.detail.already_owned", ["product": product.displayName ?? product.id], advice: "error.advice.done")
            case .anonymousNotAllowed: return .forbidden(error.message).onPage("error.detail.app_only")
            // The operator's to fix: the page's small type keeps the English hint for whoever reports it.
            case .paidCheckoutUnavailable: return APIError(.unavailable, error.message)
            }
        case let error as StripeEventError:
            switch error {
            case .notConfigured: return .notFound("Stripe is not configured on this server.")
            case .signatureRejected(let reason): return APIError(.stripeSignatureRejected, "Stripe signature rejected: \(reason).")
            case .notAnEvent(let reason): return .badRequest("Not a Stripe event: \(reason).")
            case .notYetKnown:
                return APIError(.unavailable, "The subscription is not known yet; deliver this event again later.")
            case .noRedeemMetadata: return .badRequest("The Checkout Session has no Redeem metadata (app_id, product_id).")
            case .unreadableAmount(let reason):
                return APIError(.invalidField, "The Checkout Session's amount cannot be read (\(reason)); nothing was recorded.")
            }
        case let error as RateLimited:
            var limited = APIError(.tooManyRequests, "Too many attempts; try again later.").onPage(nil)
            limited.headers[.retryAfter] = String(Int(error.retryAfter.rounded(.up)))
            return limited
        case let error as ValidationError: return .validation(error)
        case let error as StoreError where error.isUnavailable:
            var unavailable = APIError(.unavailable, "The service is briefly unavailable; try again shortly.").onPage(nil)
            unavailable.headers[.retryAfter] = "5"
            return unavailable
        case let error as StoreError where error.isNotFound: return .notFound(error.description)
        case let error as StoreError where error.isIdempotencyMismatch: return .conflict(error.description)
        case let error as StoreError where error.isConflict: return .conflict(error.description)
        case let error as StoreError where error.isRaceLost:
            return .conflict("A concurrent change to the same records won; nothing was done. Try again.")
                .onPage("error.detail.race", title: "error.title.failed", advice: "error.advice.again")
        case let error as DecodingError: return .badRequest(Self.describe(error), field: Self.field(of: error))
        case let error as UnreadableDate:
            return .badRequest("'\(error.text.prefix(64))' is not an ISO-8601 date such as 2026-01-01T00:00:00Z.")
        default: return nil
        }
    }

    static func field(of error: DecodingError) -> String? {
        let path: [any CodingKey] =
            switch error {
            case .keyNotFound(let key, let context): context.codingPath + [key]
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context): context.codingPath
            @unknown default: []
            }
        let names = path.map { $0.intValue.map(String.init) ?? $0.stringValue }
        return names.isEmpty ? nil : names.joined(separator: ".")
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "Missing field '\(key.stringValue)'."
        case .typeMismatch(let type, _): "Field '\(field(of: error) ?? "body")' has the wrong type; expected \(type)."
        case .valueNotFound(let type, _): "Field '\(field(of: error) ?? "body")' must not be null; expected \(type)."
        case .dataCorrupted(let context):
            context.codingPath.isEmpty ? "The body is not valid JSON." : "Field '\(field(of: error) ?? "body")': \(context.debugDescription)"
        @unknown default: "The body could not be decoded."
        }
    }
}
