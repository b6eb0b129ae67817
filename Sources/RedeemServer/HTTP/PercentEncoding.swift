import Foundation

/// One URL component (a path segment or a query value), with everything but unreserved characters percent-encoded,
/// so `+`, `&`, `=`, `?` and `/` inside a value never read as separators.
enum PercentEncoding {
    static let unreserved: CharacterSet = {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return allowed
    }()

    static func component(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text }
}
