import CCurl

/// Maps a failed libcurl SMTP transfer to a `MailError`.
enum CurlFailure {
    static func classify(_ code: CURLcode, smtpCode: Int, detail: String) -> MailError {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return MailError(.timeout(detail))
        case CURLE_ABORTED_BY_CALLBACK:
            return MailError(.cancelled)
        case CURLE_LOGIN_DENIED:
            return MailError(.authenticationFailed(smtpCode: smtpCode, detail: detail))
        case CURLE_USE_SSL_FAILED:
            return MailError(.tlsUnavailable)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE,
            CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ISSUER_ERROR:
            return MailError(.tls(detail))
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_NOT_BUILT_IN,
            CURLE_BAD_FUNCTION_ARGUMENT, CURLE_UNKNOWN_OPTION:
            return MailError(.configuration(detail))
        default:
            break
        }
        if (400..<600).contains(smtpCode) {
            return MailError(.rejected(smtpCode: smtpCode, detail: detail))
        }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_SEND_ERROR, CURLE_RECV_ERROR,
            CURLE_GOT_NOTHING, CURLE_WEIRD_SERVER_REPLY, CURLE_PARTIAL_FILE:
            return MailError(.connection(detail))
        default:
            return MailError(.transfer(detail))
        }
    }
}
