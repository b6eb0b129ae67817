import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A buyer in a browser: opens the sandbox checkout page, submits its form as the page would,
/// and reads the redemption link off the success page.
struct SandboxBuyer: Sendable {
    let baseURL: URL
    let appID: String

    /// Buys `product` as `email` and returns the "Open in app" (custom-scheme) link of the success page.
    func buy(_ product: String, email: String, scheme: String) async throws -> URL {
        let pageURL = baseURL.appendingPathComponent("sandbox/p/\(appID)/\(product)")
        let (pageStatus, page) = try await send(URLRequest(url: pageURL))
        #expect(pageStatus == 200, "checkout page: \(page)")
        let checkoutID = try #require(page.firstMatch(of: /name="checkout_id" value="([A-Za-z0-9_-]+)"/), "no checkout_id in the page").output.1

        var submit = URLRequest(url: pageURL)
        submit.httpMethod = "POST"
        submit.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        submit.httpBody = Data("email=\(Self.formEncoded(email))&checkout_id=\(checkoutID)".utf8)
        let (status, success) = try await send(submit)
        #expect(status == 200, "checkout submit: \(success)")
        return try Self.customSchemeLink(in: success, scheme: scheme)
    }

    /// The `href` of the success page's "Open in app" button.
    static func customSchemeLink(in html: String, scheme: String) throws -> URL {
        let match = try #require(
            html.firstMatch(of: /href="([a-z][a-z0-9+.\-]*:\/\/redeem_web_purchase\?[^"]+)"/),
            "no custom-scheme redemption link on the success page"
        )
        let link = String(match.output.1).replacingOccurrences(of: "&amp;", with: "&")
        #expect(link.hasPrefix("\(scheme)://"))
        return try #require(URL(string: link))
    }

    private func send(_ request: URLRequest) async throws -> (Int, String) {
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, String(decoding: data, as: UTF8.self))
    }

    private static func formEncoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
