import Foundation
import Hummingbird
import RedeemCore

/// An `application/x-www-form-urlencoded` body as name → value (the first of repeated names).
enum FormBody {
    static func parse(_ request: Request, limit: Int = 64 * 1024) async throws -> [String: String] {
        let buffer = try await request.body.collect(upTo: limit)
        return fields(String(buffer: buffer))
    }

    /// Form-encoded text (a body, or the query a GET form sends) as name → value: `+` is a space, `%2B` a plus.
    static func fields(_ encoded: String) -> [String: String] {
        let text = encoded.replacingOccurrences(of: "+", with: "%20")
        var fields: [String: String] = [:]
        for item in URLComponents(string: "?" + text)?.queryItems ?? [] where fields[item.name] == nil {
            fields[item.name] = item.value ?? ""
        }
        return fields
    }
}

extension FormBody {
    /// A form's `csrf` field checked, in constant time, against the token it must carry: the session's, or for the
    /// signed-out forms the cookie set with them. A 403 with `expired` otherwise.
    static func requireToken(_ form: [String: String], _ expected: String?, expired: String) throws {
        guard carriesToken(form, expected) else { throw APIError.forbidden(expired) }
    }

    /// Whether the form's `csrf` field is `expected`, compared in constant time.
    static func carriesToken(_ form: [String: String], _ expected: String?) -> Bool {
        guard let expected, let field = form["csrf"] else { return false }
        return SecretToken.constantTimeEquals(field, expected)
    }
}
