/// One message as the test SMTP server received and parsed it (Python's `email` package).
struct ReceivedMail: Decodable {
    struct Address: Decodable, Equatable {
        let name: String
        let address: String
    }

    struct Part: Decodable {
        let contentType: String
        let charset: String?
        let transferEncoding: String
        let text: String
    }

    let mailFrom: String
    let rcptTos: [String]
    let raw: String
    let tls: Bool
    let authMechanism: String?
    let authLogin: String?
    let subject: String
    let from: [Address]
    let to: [Address]
    let replyTo: [Address]
    let messageId: String
    let date: String
    let mimeVersion: String
    let contentType: String
    let parts: [Part]
    let defects: [String]

    /// The decoded body of the first part of `type`, with LF line endings.
    func body(_ type: String) -> String? {
        parts.first { $0.contentType == type }?.text.replacingOccurrences(of: "\r\n", with: "\n")
    }
}
