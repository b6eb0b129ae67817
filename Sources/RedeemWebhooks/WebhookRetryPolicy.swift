import Foundation

/// When to retry a failed delivery. Like RevenueCat by default: 5 retries after 5, 10, 20, 40 and 80 minutes.
///
/// A delivery succeeds only with a 2xx status within `timeout`. Any other status, a timeout,
/// or a connection or TLS error is a failure. Redirects are not followed, so 3xx fails too.
public struct WebhookRetryPolicy: Equatable, Sendable {
    /// Delay before the first retry; each later one doubles it.
    public var baseDelay: TimeInterval
    /// Retries after the first delivery; at most `maxRetries + 1` attempts in all.
    public var maxRetries: Int
    public var timeout: TimeInterval

    public static let `default` = WebhookRetryPolicy()

    public init(baseDelay: TimeInterval = 300, maxRetries: Int = 5, timeout: TimeInterval = 60) {
        self.baseDelay = baseDelay
        self.maxRetries = maxRetries
        self.timeout = timeout
    }

    /// When to make attempt `n + 1`, given attempt `n` (1 is the first delivery) failed at `date`.
    /// Nil once retries are exhausted; `date` itself for `n < 1` (nothing sent yet).
    public func nextAttempt(afterAttempt n: Int, from date: Date) -> Date? {
        guard n >= 1 else { return date }
        guard n <= maxRetries else { return nil }
        return date.addingTimeInterval(baseDelay * Double(1 << min(n - 1, 62)))
    }

    /// 2xx only; nil stands for a timeout or transport error.
    public static func isSuccess(statusCode: Int?) -> Bool {
        guard let statusCode else { return false }
        return (200..<300).contains(statusCode)
    }
}
