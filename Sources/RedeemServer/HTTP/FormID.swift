import RedeemCore

/// A form's own ID, a hidden field rendered new with each page, so that submitting the same form again (a double click,
/// a reload) is known as such and does its work once: 128 bits from the CSPRNG, URL-safe.
enum FormID {
    static func make() -> String { SecretToken.generate(byteCount: 16) }

    /// Whether `id` could be one a page rendered: 16 to 64 URL-safe characters.
    static func isValid(_ id: String) -> Bool {
        (16...64).contains(id.count) && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}
