import Foundation

/// Sends mail through one SMTP server using libcurl.
///
/// Each `send` runs a blocking libcurl transfer on a Dispatch worker thread, so it never
/// blocks Swift's cooperative pool. Cancelling the calling task aborts the transfer.
public struct SMTPClient: Sendable {
    public let configuration: SMTPConfiguration

    public init(configuration: SMTPConfiguration) {
        self.configuration = configuration
    }

    /// Sends `message`, filling `from` from the configuration when the message has none.
    ///
    /// Pass the same `messageID` when retrying, so receivers can spot duplicates;
    /// a fresh one is made otherwise.
    public func send(_ message: MailMessage, messageID: String? = nil) async throws(MailError) {
        let message = try message.withSender(configuration.from)
        guard let sender = message.from else { throw MailError(.noSender) }
        let id = messageID ?? MailMessage.makeMessageID(domain: sender.domain)
        let flag = CancellationFlag()
        let transfer = CurlTransfer(
            configuration: configuration,
            sender: sender.address,
            recipients: message.to.map(\.address),
            payload: Array(message.mime(date: Date(), messageID: id).utf8),
            cancellation: flag
        )
        guard !Task.isCancelled else { throw MailError(.cancelled) }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, MailError>, Never>) in
                DispatchQueue.global(qos: .utility).async {
                    continuation.resume(returning: transfer.run())
                }
            }
        } onCancel: {
            flag.set()
        }
        try result.get()
    }

    /// Connects to the server as a send would (TLS as configured, then the login) and hangs up without sending:
    /// a wrong host, port, security mode or password shows here, at start-up, rather than on the first receipt.
    public func probe() async throws(MailError) {
        let flag = CancellationFlag()
        let transfer = CurlTransfer(
            configuration: configuration, sender: configuration.from?.address ?? "probe@localhost", recipients: [], payload: [],
            cancellation: flag, connectOnly: true)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, MailError>, Never>) in
                DispatchQueue.global(qos: .utility).async { continuation.resume(returning: transfer.run()) }
            }
        } onCancel: {
            flag.set()
        }
        try result.get()
    }
}
