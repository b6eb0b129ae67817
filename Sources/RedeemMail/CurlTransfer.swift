import CCurl
import Foundation

/// libcurl's process-wide setup, run once on first use (global lets initialise lazily and atomically).
private let curlGlobalInit: CURLcode = redeem_curl_global_init()

/// One blocking SMTP send on a libcurl easy handle. Call `run()` off the cooperative pool.
struct CurlTransfer: Sendable {
    let configuration: SMTPConfiguration
    let sender: String
    let recipients: [String]
    let payload: [UInt8]
    let cancellation: CancellationFlag
    /// Connect, greet, secure and log in as a send would, then stop (`probe`): nothing is sent.
    var connectOnly = false

    func run() -> Result<Void, MailError> {
        guard curlGlobalInit == CURLE_OK else { return .failure(MailError(.transfer("curl_global_init failed"))) }
        // Everything the handle points at outlives it: the handle's defer runs first.
        let source = Unmanaged.passRetained(PayloadSource(payload))
        defer { source.release() }
        let flag = Unmanaged.passUnretained(cancellation)  // self keeps it alive
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        defer { errorBuffer.deallocate() }
        var recipientList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(recipientList) }
        for recipient in recipients {
            guard let next = curl_slist_append(recipientList, "<\(recipient)>") else {
                return .failure(MailError(.transfer("out of memory")))
            }
            recipientList = next
        }
        guard let handle = curl_easy_init() else { return .failure(MailError(.transfer("curl_easy_init failed"))) }
        defer { curl_easy_cleanup(handle) }

        let code: CURLcode
        do {
            try configure(handle, recipients: recipientList, source: source.toOpaque(), flag: flag.toOpaque())
            try check(redeem_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer), "ERRORBUFFER")
            if connectOnly { try check(redeem_curl_setopt_long(handle, CURLOPT_CONNECT_ONLY, 1), "CONNECT_ONLY") }
            code = curl_easy_perform(handle)
        } catch {
            return .failure(error)
        }
        guard code != CURLE_OK else { return .success(()) }
        var detail = String(cString: errorBuffer)
        if detail.isEmpty { detail = String(cString: curl_easy_strerror(code)) }
        if let password = configuration.password, !password.isEmpty {
            detail = detail.replacingOccurrences(of: password, with: "<redacted>")
        }
        return .failure(CurlFailure.classify(code, smtpCode: redeem_curl_response_code(handle), detail: detail))
    }

    private func configure(
        _ handle: UnsafeMutableRawPointer,
        recipients: UnsafeMutablePointer<curl_slist>?,
        source: UnsafeMutableRawPointer,
        flag: UnsafeMutableRawPointer
    ) throws(MailError) {
        let config = configuration
        try check(redeem_curl_setopt_string(handle, CURLOPT_URL, try config.url()), "URL")
        try check(redeem_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "smtp,smtps"), "PROTOCOLS_STR")
        try check(redeem_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1), "NOSIGNAL")
        try check(redeem_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, config.connectTimeoutMilliseconds), "CONNECTTIMEOUT_MS")
        try check(redeem_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, config.timeoutMilliseconds), "TIMEOUT_MS")
        let useSSL = config.security == .startTLS ? CURLUSESSL_ALL : CURLUSESSL_NONE
        try check(redeem_curl_setopt_long(handle, CURLOPT_USE_SSL, Int(useSSL.rawValue)), "USE_SSL")
        if let path = config.caCertificatesPath {
            try check(redeem_curl_setopt_string(handle, CURLOPT_CAINFO, path), "CAINFO")
        }
        if let username = config.username {
            try check(redeem_curl_setopt_string(handle, CURLOPT_USERNAME, username), "USERNAME")
            try check(redeem_curl_setopt_string(handle, CURLOPT_PASSWORD, config.password ?? ""), "PASSWORD")
        }
        try check(redeem_curl_setopt_string(handle, CURLOPT_MAIL_FROM, "<\(sender)>"), "MAIL_FROM")
        try check(redeem_curl_setopt_slist(handle, CURLOPT_MAIL_RCPT, recipients), "MAIL_RCPT")
        try check(redeem_curl_setopt_long(handle, CURLOPT_UPLOAD, 1), "UPLOAD")
        try check(
            redeem_curl_setopt_readfunction(handle) { buffer, size, count, source in
                guard let buffer, let source else { return Int(CURL_READFUNC_ABORT) }
                return Unmanaged<PayloadSource>.fromOpaque(source).takeUnretainedValue()
                    .read(into: buffer, capacity: size * count)
            }, "READFUNCTION")
        try check(redeem_curl_setopt_pointer(handle, CURLOPT_READDATA, source), "READDATA")
        // The progress callback lets a cancelled task abort the transfer.
        try check(redeem_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0), "NOPROGRESS")
        try check(
            redeem_curl_setopt_xferinfofunction(handle) { flag, _, _, _, _ in
                guard let flag else { return 0 }
                return Unmanaged<CancellationFlag>.fromOpaque(flag).takeUnretainedValue().isSet ? 1 : 0
            }, "XFERINFOFUNCTION")
        try check(redeem_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, flag), "XFERINFODATA")
    }

    private func check(_ code: CURLcode, _ option: String) throws(MailError) {
        guard code == CURLE_OK else {
            throw MailError(.configuration("libcurl refused CURLOPT_\(option): \(String(cString: curl_easy_strerror(code)))"))
        }
    }
}

/// The message bytes, handed to libcurl's read callback in pieces.
private final class PayloadSource {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let count = min(capacity, bytes.count - offset)
        bytes.withUnsafeBufferPointer { source in
            UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + offset, byteCount: count)
        }
        offset += count
        return count
    }
}
