import Hummingbird

/// An HTML response with the headers every hosted page carries.
enum HTMLPage {
    static func response(_ html: String, status: HTTPResponse.Status, nonce: String) -> Response {
        var response = Response(status: status, body: .init(byteBuffer: ByteBuffer(string: html)))
        response.headers[.contentType] = "text/html; charset=utf-8"
        response.headers[.cacheControl] = "no-store"
        response.headers[.init("Referrer-Policy")!] = "no-referrer"
        response.headers[.init("X-Content-Type-Options")!] = "nosniff"
        response.headers[.init("Content-Security-Policy")!] =
            "default-src 'none'; style-src 'nonce-\(nonce)'; script-src 'nonce-\(nonce)'; img-src 'self' https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
        return response
    }
}
