import Hummingbird

/// An HTML response with the headers every hosted page carries.
enum HTMLPage {
    /// `framing`: who may frame the page and what it may frame; no one and nothing, but for the console's preview.
    static func response(_ html: String, status: HTTPResponse.Status, nonce: String, framing: Framing = .none) -> Response {
        var response = Response(status: status, body: .init(byteBuffer: ByteBuffer(string: html)))
        response.headers[.contentType] = "text/html; charset=utf-8"
        response.headers[.cacheControl] = "no-store"
        response.headers[.init("Referrer-Policy")!] = "no-referrer"
        response.headers[.init("X-Content-Type-Options")!] = "nosniff"
        response.headers[.init("Content-Security-Policy")!] =
            "default-src 'none'; style-src 'nonce-\(nonce)'; script-src 'nonce-\(nonce)'; img-src 'self' https: data:; form-action 'self'; base-uri 'none'; "
            + framing.directives
        return response
    }

    enum Framing {
        case none
        /// A page framed by the console (a preview).
        case framedBySelf
        /// A console page that frames previews.
        case framesSelf

        var directives: String {
            switch self {
            case .none: "frame-ancestors 'none'"
            case .framedBySelf: "frame-ancestors 'self'"
            case .framesSelf: "frame-ancestors 'none'; frame-src 'self'"
            }
        }
    }
}
