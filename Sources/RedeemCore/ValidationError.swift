/// Bad input for one field: what a client must fix.
public struct ValidationError: Error, Equatable, Sendable, CustomStringConvertible {
    public let field: String
    public let reason: String

    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(field): \(reason)" }
}
