import Foundation
import Testing

@testable import RedeemServer

@Suite struct PortalLinksTests {
    /// The public URL's slashes at either end never double up in `management_url` or a sign-in link.
    @Test func linksJoinThePublicURLWithOneSlash() {
        for base in ["https://pay.example.com", "https://pay.example.com/", "https://pay.example.com//"] {
            let url = URL(string: base)!
            #expect(PortalLinks.home(publicURL: url, appID: "app_1") == "https://pay.example.com/account/app_1", "\(base)")
            #expect(PortalLinks.signIn(publicURL: url, appID: "app 1", token: "t") == "https://pay.example.com/account/app%201/sign-in/t")
        }
    }
}

@Suite struct PercentEncodingTests {
    /// Only RFC 3986's unreserved characters stay; every other byte of the UTF-8 is `%XX`, as Foundation encodes it.
    @Test(arguments: ["app_1", "", "a b", "a+b&c=d?e/f#g%h", "é", "日本", "🙂 x", "~-._", "A\u{0}Z", "\"<>'\\"])
    func encodesWhatFoundationEncodes(_ text: String) {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        #expect(PercentEncoding.component(text) == text.addingPercentEncoding(withAllowedCharacters: unreserved))
        #expect(PercentEncoding.component(text).removingPercentEncoding == text)
    }

    @Test func keepsUnreservedTextAsItIs() {
        #expect(PercentEncoding.component("Az09-._~") == "Az09-._~")
        #expect(PercentEncoding.component("a/b") == "a%2Fb")
    }
}
