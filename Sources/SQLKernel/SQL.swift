/// A value bound to, or read from, a statement. Booleans are stored as 0/1 on both engines.
public enum SQLValue: Sendable, Equatable {
    case int(Int64)
    case double(Double)
    case text(String)
    case null
}

/// A statement with `$1…$n` placeholders, built by interpolation so values are never spliced into the text.
public struct SQL: Sendable, ExpressibleByStringInterpolation {
    public var text: String
    public var binds: [SQLValue]
    /// Run once (a migration's DDL): an engine that keeps statements for reuse should not keep this one.
    public var runsOnce = false

    public init(stringLiteral value: String) {
        self.text = value
        self.binds = []
    }

    public init(stringInterpolation: Interpolation) {
        self.text = stringInterpolation.text
        self.binds = stringInterpolation.binds
    }

    public struct Interpolation: StringInterpolationProtocol {
        var text = ""
        var binds: [SQLValue] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount * 3)
        }

        public mutating func appendLiteral(_ literal: String) { text += literal }

        public mutating func appendInterpolation(_ value: some SQLBindable) { bind(value.sqlValue) }

        public mutating func appendInterpolation(_ value: (some SQLBindable)?) { bind(value?.sqlValue ?? .null) }

        /// Trusted SQL text (identifiers, fixed fragments): never user input.
        public mutating func appendInterpolation(unsafeRaw raw: String) { text += raw }

        /// Another statement's text and values, its placeholders renumbered after this one's (a CTE put in front). Its
        /// text is our own SQL: a `$n` inside one of its string literals would be renumbered too.
        public mutating func appendInterpolation(sql fragment: SQL) {
            let offset = binds.count
            var characters = fragment.text.makeIterator()
            var pending = characters.next()
            while let character = pending {
                pending = characters.next()
                guard character == "$", let first = pending, first.isASCII, first.isNumber else {
                    text.append(character)
                    continue
                }
                var digits = ""
                while let digit = pending, digit.isASCII, digit.isNumber {
                    digits.append(digit)
                    pending = characters.next()
                }
                text += "$\(Int(digits)! + offset)"
            }
            binds += fragment.binds
        }

        mutating func bind(_ value: SQLValue) {
            binds.append(value)
            text += "$\(binds.count)"
        }
    }
}

public protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

extension String: SQLBindable { public var sqlValue: SQLValue { .text(self) } }
extension Int: SQLBindable { public var sqlValue: SQLValue { .int(Int64(self)) } }
extension Int64: SQLBindable { public var sqlValue: SQLValue { .int(self) } }
extension Double: SQLBindable { public var sqlValue: SQLValue { .double(self) } }
extension Bool: SQLBindable { public var sqlValue: SQLValue { .int(self ? 1 : 0) } }
