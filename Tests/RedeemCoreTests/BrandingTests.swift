import Foundation
import Testing

@testable import RedeemCore

struct BrandingColorTests {
    @Test func hexColoursAreReadAndWrittenAsSixLowercaseDigits() throws {
        #expect(HexColor("#4338CA")?.hex == "#4338ca")
        #expect(HexColor("4338ca")?.hex == "#4338ca")
        #expect(HexColor("#fA0")?.hex == "#ffaa00")
        #expect(HexColor(" #000000 ")?.hex == "#000000")
    }

    /// Only six hex digits reach a stylesheet: anything that could close a rule or a tag is refused.
    @Test(arguments: ["", "#", "#12", "#12345", "#1234567", "red", "#ggg", "#fff;}", "#fff</style>", "url(x)", "#１２３"])
    func anythingElseIsNotAColour(_ text: String) {
        #expect(HexColor(text) == nil)
    }

    @Test func decodingRefusesWhatIsNotAColour() throws {
        let decoded = try JSONDecoder().decode([HexColor].self, from: Data(##"["#ABCDEF"]"##.utf8))
        #expect(decoded.first?.hex == "#abcdef")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([HexColor].self, from: Data(#"["blue"]"#.utf8)) }
    }
}

struct ContrastTests {
    /// WCAG's own reference points: black on white is 21:1, a colour with itself 1:1, #767676 on white just passes AA.
    @Test func ratiosMatchWCAG() throws {
        #expect(abs(Contrast.ratio(.white, HexColor("#000")!) - 21) < 0.001)
        #expect(Contrast.ratio(HexColor("#4338ca")!, HexColor("#4338ca")!) == 1)
        let grey = Contrast.ratio(HexColor("#767676")!, .white)
        #expect(grey >= 4.5 && grey < 4.6)
        #expect(Contrast.ratio(HexColor("#777777")!, .white) < 4.5)
        #expect(Contrast.ratio(.white, HexColor("#000")!) == Contrast.ratio(HexColor("#000")!, .white))
    }

    /// A button's label is white or black, whichever reads better; every accent gets at least 4.5:1.
    @Test func aButtonLabelAlwaysReadsOnItsAccent() throws {
        #expect(Contrast.label(on: HexColor("#4338ca")!) == .white)
        #expect(Contrast.label(on: HexColor("#ffd60a")!) == .black)
        for value in stride(from: 0, through: 0xffffff, by: 0x010307) {
            let accent = HexColor(red: UInt8(value >> 16 & 0xff), green: UInt8(value >> 8 & 0xff), blue: UInt8(value & 0xff))
            #expect(Contrast.ratio(Contrast.label(on: accent), accent) >= Contrast.textMinimum)
        }
    }
}

struct BrandingCheckTests {
    @Test func noBrandingAndTheDefaultsPass() {
        #expect(BrandingCheck.findings(CheckoutBranding()).isEmpty)
    }

    /// Light grey text on white cannot be read: refused, naming the field and the ratio.
    @Test func unreadableTextIsRefused() throws {
        let branding = CheckoutBranding(light: BrandPalette(background: HexColor("#ffffff"), foreground: HexColor("#bbbbbb")))
        let refusal = try #require(BrandingCheck.refusal(branding))
        #expect(refusal.field == "brand_foreground")
        #expect(refusal.reason.contains("1.9:1"))
        #expect(refusal.reason.contains("light mode"))
    }

    /// A dark background with the default dark text passes; the same background in light mode, with light mode's
    /// default dark text, is refused on the dark field names.
    @Test func eachSchemeIsJudgedWithItsOwnDefaults() throws {
        let dark = CheckoutBranding(dark: BrandPalette(background: HexColor("#000000")))
        #expect(BrandingCheck.refusal(dark) == nil)
        let wrong = CheckoutBranding(dark: BrandPalette(background: HexColor("#ffffff")))
        #expect(BrandingCheck.refusal(wrong)?.field == "brand_foreground_dark")
    }

    /// A pale accent makes links hard to read on white: a warning, not a refusal.
    @Test func aPaleAccentIsAWarning() {
        let branding = CheckoutBranding(light: BrandPalette(accent: HexColor("#ffd60a")))
        #expect(BrandingCheck.refusal(branding) == nil)
        let warnings = BrandingCheck.warnings(branding)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("light mode") == true)
        #expect(warnings.first?.contains("4.5:1") == true)
        #expect(BrandingCheck.warnings(CheckoutBranding(light: BrandPalette(accent: HexColor("#0f5132")))).isEmpty)
    }
}

struct BrandingChangesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let app = App(id: "app_1", name: "Demo", scheme: "demo", createdAt: now, updatedAt: now)

    @Test func coloursAreStoredNormalisedAndClearedByAnEmptyString() throws {
        var app = Self.app
        var changes = AppChanges()
        changes.brandAccent = "#0F5132"
        changes.brandBackgroundDark = "#000"
        changes.brandLogoURL = "https://example.com/logo.png"
        try changes.apply(to: &app, now: Self.now)
        #expect(app.branding.light.accent?.hex == "#0f5132")
        #expect(app.branding.dark.background?.hex == "#000000")
        #expect(app.branding.logoURL == "https://example.com/logo.png")
        var clear = AppChanges()
        clear.brandAccent = ""
        try clear.apply(to: &app, now: Self.now)
        #expect(app.brandAccent == nil)
        #expect(app.brandBackgroundDark?.hex == "#000000")
    }

    @Test func aBadColourOrAnHTTPLogoIsRefusedAndTheAppIsUntouched() throws {
        var app = Self.app
        var changes = AppChanges()
        changes.name = "Renamed"
        changes.brandAccent = "blue"
        #expect(throws: ValidationError(field: "brand_accent", reason: "must be a hex colour such as #4338ca")) {
            try changes.apply(to: &app, now: Self.now)
        }
        #expect(app.name == "Demo")
        var logo = AppChanges()
        logo.brandLogoURL = "http://example.com/logo.png"
        #expect(throws: ValidationError.self) { try logo.apply(to: &app, now: Self.now) }
        logo.brandLogoURL = "/assets/demo-icon.svg"
        #expect(throws: ValidationError.self) { try logo.apply(to: &app, now: Self.now) }
        var contrast = AppChanges()
        contrast.brandForeground = "#eeeeee"
        #expect((try? contrast.apply(to: &app, now: Self.now)) == nil)
        #expect(app.brandForeground == nil)
    }
}
