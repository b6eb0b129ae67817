import Foundation

/// Sends one HTTP request. The SDK's only door to the network, so tests can replace it.
public protocol HTTPTransport: Sendable {
    /// Sends `request` once (no retries; the SDK retries). Throws on transport failure,
    /// and `CancellationError` if the calling task is cancelled.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

public struct HTTPRequest: Hashable, Sendable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

public struct HTTPResponse: Hashable, Sendable {
    public var statusCode: Int
    public var headers: [String: String]
    public var body: Data

    public init(statusCode: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }

    /// A header value, matching the name case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    var isSuccess: Bool { (200..<300).contains(statusCode) }
}
