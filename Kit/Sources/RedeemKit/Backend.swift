import Foundation

/// Builds the three backend requests and sends them with retries.
struct Backend: Sendable {
    static let sdkVersion = "0.1.0"

    let baseURL: URL
    let apiKey: String
    let transport: any HTTPTransport
    let retryPolicy: RetryPolicy
    let clock: any RedeemClock

    /// `POST /v1/subscribers/redeem_purchase`.
    func redeemPurchase(token: String, appUserID: String) async -> Result<HTTPResponse, RedeemError> {
        await send(post("v1/subscribers/redeem_purchase", body: ["app_user_id": appUserID, "redemption_token": token]))
    }

    /// `POST /v1/subscribers/redeem_offer_code`.
    func redeemOfferCode(_ code: String, appUserID: String) async -> Result<HTTPResponse, RedeemError> {
        await send(post("v1/subscribers/redeem_offer_code", body: ["app_user_id": appUserID, "code": code]))
    }

    /// `GET /v1/subscribers/{app_user_id}`, the ID percent-encoded as one path segment.
    func customerInfo(appUserID: String) async -> Result<HTTPResponse, RedeemError> {
        let encoded = appUserID.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? appUserID
        return await send(HTTPRequest(method: "GET", url: url("v1/subscribers/\(encoded)"), headers: headers()))
    }

    /// Sends `request`, retrying network failures and retryable statuses. Returns the final
    /// response whatever its status; fails only for transport errors and cancellation.
    func send(_ request: HTTPRequest) async -> Result<HTTPResponse, RedeemError> {
        var retry = 0
        while true {
            if Task.isCancelled { return .failure(.cancelled) }
            var attempt = request
            if retry > 0 { attempt.headers["X-Retry-Count"] = String(retry) }

            let delay: TimeInterval
            do {
                let response = try await transport.send(attempt)
                guard RetryPolicy.isRetryable(statusCode: response.statusCode), retry < retryPolicy.maxRetries else {
                    return .success(response)
                }
                if let retryAfter = RetryPolicy.retryAfter(response.header("Retry-After"), now: clock.now()) {
                    // Honour the server's wait; give up if it is longer than we are willing to block.
                    guard retryAfter <= retryPolicy.maxRetryAfter else { return .success(response) }
                    delay = retryAfter
                } else {
                    delay = retryPolicy.backoff(retry: retry)
                }
            } catch {
                if error is CancellationError || Task.isCancelled { return .failure(.cancelled) }
                guard retry < retryPolicy.maxRetries else { return .failure(.network(error)) }
                delay = retryPolicy.backoff(retry: retry)
            }

            do {
                try await clock.sleep(seconds: delay)
            } catch {
                return .failure(.cancelled)
            }
            retry += 1
        }
    }

    private func post(_ path: String, body: [String: String]) -> HTTPRequest {
        let data = try? JSONCoding.encoder().encode(body)
        var headers = headers()
        headers["Content-Type"] = "application/json"
        return HTTPRequest(method: "POST", url: url(path), headers: headers, body: data)
    }

    private func url(_ path: String) -> URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: "\(base)/\(path)") ?? baseURL.appendingPathComponent(path)
    }

    private func headers() -> [String: String] {
        [
            "Authorization": "Bearer \(apiKey)",
            "Accept": "application/json",
            "X-Platform": Self.platform,
            "X-Client-Version": "RedeemKit/\(Self.sdkVersion)",
        ]
    }

    private static let unreserved = CharacterSet(
        charactersIn:
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static var platform: String {
        #if os(iOS)
        "iOS"
        #elseif os(macOS)
        "macOS"
        #elseif os(tvOS)
        "tvOS"
        #elseif os(watchOS)
        "watchOS"
        #elseif os(visionOS)
        "visionOS"
        #elseif os(Linux)
        "Linux"
        #else
        "unknown"
        #endif
    }
}
