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
