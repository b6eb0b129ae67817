import Foundation

/// One URL component (a path segment or a query value), with everything but unreserved characters percent-encoded,
/// so `+`, `&`, `=`, `?` and `/` inside a value never read as separators. Only ASCII letters and digits stay as they
/// are (`CharacterSet.alphanumerics` would also keep `é` and other letters, which are not valid in a URL).
enum PercentEncoding {
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func component(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text }
}
