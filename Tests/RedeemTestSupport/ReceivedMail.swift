/// One message as the test SMTP server received and parsed it (Python's `email` package).
public struct ReceivedMail: Decodable, Sendable {
    public struct Address: Decodable, Equatable, Sendable {
        public let name: String
        public let address: String

        public init(name: String, address: String) {
            self.name = name
            self.address = address
        }
    }

    public struct Part: Decodable, Sendable {
        public let contentType: String
        public let charset: String?
        public let transferEncoding: String
        public let text: String
    }

    public let mailFrom: String
    public let rcptTos: [String]
    public let raw: String
    public let tls: Bool
    public let authMechanism: String?
    public let authLogin: String?
    public let subject: String
    public let from: [Address]
    public let to: [Address]
    public let replyTo: [Address]
    public let messageId: String
    public let date: String
    public let mimeVersion: String
    public let contentType: String
    public let parts: [Part]
    public let defects: [String]

    /// The decoded body of the first part of `type`, with LF line endings.
    public func body(_ type: String) -> String? {
        parts.first { $0.contentType == type }?.text.replacingOccurrences(of: "\r\n", with: "\n")
    }
}
