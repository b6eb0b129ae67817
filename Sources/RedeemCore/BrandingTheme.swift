/// Light or dark, as the buyer's browser prefers (`prefers-color-scheme`).
public enum ColorScheme: String, CaseIterable, Sendable {
    case light, dark
}

/// One scheme's chosen colours; nil keeps the buyer pages' own.
public struct BrandPalette: Hashable, Sendable {
    public var accent: HexColor?
    public var background: HexColor?
    public var foreground: HexColor?

    public init(accent: HexColor? = nil, background: HexColor? = nil, foreground: HexColor? = nil) {
        self.accent = accent
        self.background = background
        self.foreground = foreground
    }

    public var isEmpty: Bool { accent == nil && background == nil && foreground == nil }
}

/// An app's checkout branding, as RevenueCat's Web Billing lets an app set its colours and logo: a logo (https; without
/// one the pages show the app's icon) and an accent, a background and a foreground for light and for dark.
public struct CheckoutBranding: Hashable, Sendable {
    public var logoURL: String?
    public var light: BrandPalette
    public var dark: BrandPalette

    public init(logoURL: String? = nil, light: BrandPalette = .init(), dark: BrandPalette = .init()) {
        self.logoURL = logoURL
        self.light = light
        self.dark = dark
    }

    public func palette(_ scheme: ColorScheme) -> BrandPalette { scheme == .light ? light : dark }

    /// The buyer pages' own card, text and accent colours (layout-head's `--card`, `--text`, `--accent`), which a
    /// palette's unset colours fall back to; contrast is judged on what the buyer will see.
    public static func pageDefaults(_ scheme: ColorScheme) -> (accent: HexColor, background: HexColor, foreground: HexColor) {
        switch scheme {
        case .light: (HexColor(red: 0x43, green: 0x38, blue: 0xca), .white, HexColor(red: 0x16, green: 0x16, blue: 0x1d))
        case .dark:
            (HexColor(red: 0x8b, green: 0x93, blue: 0xff), HexColor(red: 0x17, green: 0x17, blue: 0x1f), HexColor(red: 0xec, green: 0xec, blue: 0xf1))
        }
    }

    /// What the buyer sees in `scheme`: the chosen colours, the page's own for the rest.
    public func effective(_ scheme: ColorScheme) -> (accent: HexColor, background: HexColor, foreground: HexColor) {
        let defaults = Self.pageDefaults(scheme)
        let chosen = palette(scheme)
        return (chosen.accent ?? defaults.accent, chosen.background ?? defaults.background, chosen.foreground ?? defaults.foreground)
    }
}

/// Whether a branding is readable, by WCAG AA's 4.5:1 for text. Text on the background below it is refused: the buyer
/// could not read the price. The accent as text on the background (links, the step icons) below it is a warning: brand
/// colours often are, and buttons stay readable because their label is white or black, whichever contrasts more.
public enum BrandingCheck {
    public struct Finding: Hashable, Sendable {
        public let field: String
        public let sentence: String
        public let refused: Bool
    }

    public static func findings(_ branding: CheckoutBranding) -> [Finding] {
        var findings: [Finding] = []
        for scheme in ColorScheme.allCases {
            let colors = branding.effective(scheme)
            let suffix = scheme == .dark ? "_dark" : ""
            let text = Contrast.ratio(colors.foreground, colors.background)
            if text < Contrast.textMinimum {
                findings.append(
                    Finding(
                        field: "brand_foreground" + suffix,
                        sentence: "has too little contrast with the background in \(scheme.rawValue) mode (\(Contrast.words(text)); "
                            + "text needs at least 4.5:1 to be readable)",
                        refused: true))
            }
            let accent = Contrast.ratio(colors.accent, colors.background)
            if accent < Contrast.textMinimum {
                findings.append(
                    Finding(
                        field: "brand_accent" + suffix,
                        sentence: "In \(scheme.rawValue) mode the accent as link text on the background has a contrast of "
                            + "\(Contrast.words(accent)), below WCAG AA's 4.5:1: links are hard to read",
                        refused: false))
            }
        }
        return findings
    }

    /// The first refusal, as the error a setting's validation throws.
    public static func refusal(_ branding: CheckoutBranding) -> ValidationError? {
        findings(branding).first(where: \.refused).map { ValidationError(field: $0.field, reason: $0.sentence) }
    }

    public static func warnings(_ branding: CheckoutBranding) -> [String] {
        findings(branding).filter { !$0.refused }.map { $0.sentence + "." }
    }
}
