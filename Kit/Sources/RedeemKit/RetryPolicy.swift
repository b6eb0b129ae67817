import Foundation

/// When and how long to wait before retrying a request.
///
/// Network failures and 408, 425, 429 and 5xx responses are retried up to `maxRetries` times
/// with exponential backoff plus jitter; a `Retry-After` header replaces the backoff. Other
/// responses, including all other 4xx, are final.
public struct RetryPolicy: Sendable {
    /// Retries after the first attempt (so at most `maxRetries + 1` requests).
    public var maxRetries: Int
    /// Backoff before retry `n` (0-based) is `min(baseDelay * 2^n, maxDelay)` plus jitter.
    public var baseDelay: TimeInterval
    public var maxDelay: TimeInterval
    /// Jitter is a random fraction of `baseDelay` in `0..<jitterFactor`.
    public var jitterFactor: Double
    /// A `Retry-After` longer than this ends the retries instead of waiting.
    public var maxRetryAfter: TimeInterval
    /// Source of randomness in `0..<1`, injectable for deterministic tests.
    public var random: @Sendable () -> Double

    public init(
        maxRetries: Int = 6,
        baseDelay: TimeInterval = 0.5,
        maxDelay: TimeInterval = 30,
        jitterFactor: Double = 1,
        maxRetryAfter: TimeInterval = 120,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.jitterFactor = jitterFactor
        self.maxRetryAfter = maxRetryAfter
        self.random = random
    }

    public static let `default` = RetryPolicy()

    /// Never retry.
    public static let none = RetryPolicy(maxRetries: 0)

    static let retryableStatusCodes: Set<Int> = [408, 425, 429]

    static func isRetryable(statusCode: Int) -> Bool {
        retryableStatusCodes.contains(statusCode) || (500...599).contains(statusCode)
    }

    /// The backoff before retry `retry` (0-based).
    func backoff(retry: Int) -> TimeInterval {
        let exponential = baseDelay * pow(2, Double(min(retry, 30)))
        return min(exponential, maxDelay) + baseDelay * jitterFactor * random()
    }

    /// Parses `Retry-After`: delay seconds, or an HTTP date relative to `now`.
    static func retryAfter(_ value: String?, now: Date) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = TimeInterval(value), seconds.isFinite {
            return max(0, seconds)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
