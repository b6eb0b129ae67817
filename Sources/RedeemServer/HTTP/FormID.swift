import RedeemCore

/// A form's own ID, a hidden field rendered new with each page, so that submitting the same form again (a double click,
/// a reload) is known as such and does its work once: 128 bits from the CSPRNG, URL-safe.
enum FormID {
    static func make() -> String { SecretToken.generate(byteCount: 16) }

    /// A submitted form's ID from its `field`: nil when absent (a page served before the form had one), 400 when it is
    /// not one a page could have rendered.
    static func submitted(_ form: [String: String], field: String) throws -> RequestID? {
        guard let id = form[field], !id.isEmpty else { return nil }
        guard isValid(id) else { throw APIError.badRequest("This form is not one of ours; reload the page.", field: field) }
        return .form(id)
    }

    /// Whether `id` could be one a page rendered: 16 to 64 URL-safe characters.
    static func isValid(_ id: String) -> Bool {
        (16...64).contains(id.count) && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}
