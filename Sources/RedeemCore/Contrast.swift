import Foundation

/// WCAG 2.x contrast (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio): AA asks 4.5:1 for body text.
public enum Contrast {
    public static let textMinimum = 4.5

    /// Relative luminance, 0 (black) to 1 (white).
    public static func luminance(_ color: HexColor) -> Double {
        func channel(_ value: UInt8) -> Double {
            let c = Double(value) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(color.red) + 0.7152 * channel(color.green) + 0.0722 * channel(color.blue)
    }

    /// From 1 (the same) to 21 (black on white), whichever is lighter.
    public static func ratio(_ a: HexColor, _ b: HexColor) -> Double {
        let (la, lb) = (luminance(a), luminance(b))
        return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
    }

    /// The label colour for a button filled with `background`: white or black, whichever reads better. One of the
    /// two always reaches 4.5:1 (the worst case, a mid grey, still gives about 4.58:1; a softer near-black would not).
    public static func label(on background: HexColor) -> HexColor {
        ratio(.white, background) >= ratio(.black, background) ? .white : .black
    }

    /// `7.2:1`, for sentences.
    public static func words(_ ratio: Double) -> String {
        String(format: "%.1f:1", ratio)
    }
}
