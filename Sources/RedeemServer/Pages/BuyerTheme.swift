import RedeemCore

/// An app's checkout branding as the buyer pages' CSS custom properties (layout-head's `--accent`, `--card`, `--text`…).
/// Every value is a `HexColor`'s six digits or a fixed expression written here, never an operator's text, so nothing
/// typed can reach the stylesheet (the CSP allows only the nonce's own style element anyway).
struct BuyerTheme: Sendable {
    struct Variable: Sendable {
        let name: String
        let value: String
    }

    let light: [Variable]
    let dark: [Variable]
    /// The console's preview shows each scheme side by side: one scheme whatever the browser prefers.
    let forceLight: Bool
    let forceDark: Bool

    /// Nil when there is nothing to change: the pages keep their own colours.
    init?(_ branding: CheckoutBranding, forcing scheme: ColorScheme? = nil) {
        light = Self.variables(branding.light)
        dark = Self.variables(branding.dark)
        forceLight = scheme == .light
        forceDark = scheme == .dark
        if light.isEmpty, dark.isEmpty, scheme == nil { return nil }
    }

    static func variables(_ palette: BrandPalette) -> [Variable] {
        var variables: [Variable] = []
        if let accent = palette.accent {
            variables += [
                Variable(name: "accent", value: accent.hex), Variable(name: "focus", value: accent.hex),
                Variable(name: "on-accent", value: Contrast.label(on: accent).hex),
                Variable(name: "accent-hover", value: "color-mix(in srgb, var(--accent) 84%, var(--text))"),
                Variable(name: "accent-soft", value: "color-mix(in srgb, var(--accent) 14%, var(--card))"),
            ]
        }
        if let background = palette.background { variables.append(Variable(name: "card", value: background.hex)) }
        if let foreground = palette.foreground { variables.append(Variable(name: "text", value: foreground.hex)) }
        if palette.background != nil || palette.foreground != nil {
            // The surfaces and greys around the card follow the two colours, so a dark card never sits on a pale page.
            variables += [
                Variable(name: "bg", value: "color-mix(in srgb, var(--card) 93%, var(--text))"),
                Variable(name: "soft", value: "color-mix(in srgb, var(--card) 95%, var(--text))"),
                Variable(name: "border", value: "color-mix(in srgb, var(--card) 86%, var(--text))"),
                Variable(name: "input-border", value: "color-mix(in srgb, var(--card) 50%, var(--text))"),
                Variable(name: "muted", value: "color-mix(in srgb, var(--text) 74%, var(--card))"),
            ]
        }
        return variables
    }
}
