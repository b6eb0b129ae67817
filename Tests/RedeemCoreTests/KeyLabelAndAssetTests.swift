import RedeemCore
import Testing

@Suite struct KeyLabelAndAssetTests {
    @Test func labelsAreTrimmedOneLineAndShort() throws {
        #expect(try APIKey.validLabel("  iOS app ") == "iOS app")
        #expect(try APIKey.validLabel("   ") == nil)
        #expect(try APIKey.validLabel(nil) == nil)
        for bad in ["two\nlines", "tab\tinside", String(repeating: "x", count: 101)] {
            #expect(throws: ValidationError.self) { try APIKey.validLabel(bad) }
        }
    }

    @Test func iconsMayBeHTTPSOrAFileRedeemServes() throws {
        #expect(Formats.isAssetPath("/assets/demo-icon.svg"))
        for bad in ["/assets/", "/assets/../etc/passwd", "/assets/.hidden", "/assets/a/b.svg", "/other/icon.png", "http://x/assets/i.svg"] {
            #expect(!Formats.isAssetPath(bad), "\(bad)")
        }
        var changes = AppChanges()
        changes.name = "App"
        changes.iconURL = "/assets/demo-icon.svg"
        #expect(try changes.makeApp(now: .now).iconURL == "/assets/demo-icon.svg")
        changes.iconURL = "http://example.com/icon.png"
        #expect(throws: ValidationError.self) { try changes.makeApp(now: .now) }
    }
}
