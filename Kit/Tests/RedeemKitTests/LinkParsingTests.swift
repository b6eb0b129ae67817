import Foundation
import Testing

@testable import RedeemKit

@Suite("Parsing redemption links")
struct LinkParsingTests {
    let parser = Redeem.Configuration(apiKey: "pk", baseURL: Fixture.baseURL).linkParser

    @Test(arguments: [
        ("rc-39976e83d0://redeem_web_purchase?redemption_token=tok_1", "tok_1"),
        ("myapp://redeem_web_purchase?redemption_token=tok_1&utm_source=mail", "tok_1"),
        ("myapp://redeem_web_purchase/?redemption_token=tok_1", "tok_1"),
        ("myapp://REDEEM_WEB_PURCHASE?redemption_token=tok_1", "tok_1"),
        ("myapp://redeem_web_purchase?redemption_token=a%2Db_c", "a-b_c"),
        ("https://pay.example.com/r/tok_1", "tok_1"),
        ("https://PAY.example.com/r/tok_1", "tok_1"),
        ("https://pay.example.com/r/tok_1/", "tok_1"),
        ("https://pay.example.com/r/tok_1?utm_source=mail#top", "tok_1"),
        ("https://pay.example.com/r/tok%5F1", "tok_1"),
    ])
    func acceptsBothForms(link: String, token: String) {
        #expect(parser.parse(link)?.redemptionToken == token)
    }

    @Test(arguments: [
        "",
        "   ",
        "invalid_link",
        "rc-1111://another_link?redemption_token=1234",
        "myapp://redeem_web_purchase",
        "myapp://redeem_web_purchase?redemption_token",
        "myapp://redeem_web_purchase?redemption_token=",
        "myapp://redeem_web_purchase?redemption_token=%20%20",
        "myapp://redeem_web_purchase?redemption_token=a%20b",
        "myapp://redeem_web_purchase?token=tok_1",
        "myapp://redeem_web_purchase?redemption_token=a&redemption_token=b",
        "myapp://redeem_web_purchase/extra?redemption_token=tok_1",
        "myapp:///redeem_web_purchase?redemption_token=tok_1",
        "myapp:redeem_web_purchase?redemption_token=tok_1",
        "https://redeem_web_purchase?redemption_token=tok_1",
        "http://pay.example.com/r/tok_1",
        "https://evil.example.org/r/tok_1",
        "https://pay.example.com.evil.org/r/tok_1",
        "https://sub.pay.example.com/r/tok_1",
        "https://pay.example.com/r/",
        "https://pay.example.com/r",
        "https://pay.example.com/r//tok_1",
        "https://pay.example.com/r/tok_1/extra",
        "https://pay.example.com/r/tok_1//",
        "https://pay.example.com/x/tok_1",
        "https://pay.example.com/R/tok_1",
        "https://pay.example.com/api/r/tok_1",
        "https://pay.example.com/r/tok%2F1",
        "https://pay.example.com/r/%20",
        "https://pay.example.com/?redemption_token=tok_1",
        "mailto:jane@example.com",
    ])
    func rejectsMalformed(link: String) {
        #expect(parser.parse(link) == nil)
    }

    @Test func configuredHostsReplaceTheBaseURLHost() {
        let config = Redeem.Configuration(apiKey: "pk", baseURL: Fixture.baseURL, redemptionLinkHosts: ["Links.Example.com", "go.example.com"])
        #expect(config.linkParser.parse("https://links.example.com/r/tok_1")?.redemptionToken == "tok_1")
        #expect(config.linkParser.parse("https://go.example.com/r/tok_2")?.redemptionToken == "tok_2")
        #expect(config.linkParser.parse("https://pay.example.com/r/tok_1") == nil)
    }

    @Test func configuredSchemeIsEnforced() {
        let config = Redeem.Configuration(apiKey: "pk", baseURL: Fixture.baseURL, urlScheme: "rc-39976e83d0")
        #expect(config.linkParser.parse("rc-39976e83d0://redeem_web_purchase?redemption_token=t")?.redemptionToken == "t")
        #expect(config.linkParser.parse("other://redeem_web_purchase?redemption_token=t") == nil)
    }

    @Test func httpIsAcceptedOnlyForAnHTTPBaseURL() {
        let config = Redeem.Configuration(apiKey: "pk", baseURL: URL(string: "http://localhost:8080")!)
        #expect(config.linkParser.parse("http://localhost:8080/r/tok_1")?.redemptionToken == "tok_1")
        #expect(config.linkParser.parse("http://other:8080/r/tok_1") == nil)
    }

    @Test func instanceParsingUsesItsConfiguration() {
        let redeem = Fixture.redeem(transport: FakeTransport(HTTPResponse(statusCode: 500)), redemptionLinkHosts: ["go.example.com"])
        #expect(redeem.webPurchaseRedemption(from: URL(string: "https://go.example.com/r/t1")!)?.redemptionToken == "t1")
        #expect(redeem.webPurchaseRedemption(from: URL(string: "https://pay.example.com/r/t1")!) == nil)
    }

    /// No test configures `Redeem.shared`, so the static API sees an unconfigured SDK.
    @Test func unconfiguredStaticParsingAcceptsOnlyTheCustomScheme() {
        #expect(Redeem.parseAsWebPurchaseRedemption("myapp://redeem_web_purchase?redemption_token=t1")?.redemptionToken == "t1")
        #expect(URL(string: "myapp://redeem_web_purchase?redemption_token=t2")!.asWebPurchaseRedemption?.redemptionToken == "t2")
        #expect(Redeem.parseAsWebPurchaseRedemption("https://pay.example.com/r/t1") == nil)
        #expect(Redeem.parseAsWebPurchaseRedemption("not a url at all") == nil)
        #expect(URL(string: "myapp://redeem_web_purchase?redemption_token=")!.asWebPurchaseRedemption == nil)
    }

    @Test func descriptionDoesNotLeakTheToken() {
        #expect(!String(describing: Fixture.redemption).contains("tok_abc"))
    }
}
