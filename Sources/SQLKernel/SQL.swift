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
            binds += fragment.binds
            guard offset > 0 else {
                text += fragment.text
                return
            }
            // Over UTF-8 bytes, copying the spans between placeholders whole: this runs for every request's statement.
            let source = fragment.text
            let bytes = source.utf8
            var copied = bytes.startIndex
            var index = bytes.startIndex
            while index != bytes.endIndex {
                guard bytes[index] == UInt8(ascii: "$") else {
                    bytes.formIndex(after: &index)
                    continue
                }
                var end = bytes.index(after: index)
                var number = 0
                while end != bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) {
                    number = number * 10 + Int(bytes[end] - UInt8(ascii: "0"))
                    bytes.formIndex(after: &end)
                }
                if end != bytes.index(after: index) {
                    text += source[copied..<index]
                    text += "$"
                    text += String(number + offset)
                    copied = end
                }
                index = end
            }
            text += source[copied...]
        }

        mutating func bind(_ value: SQLValue) {
            binds.append(value)
            text += "$"
            text += String(binds.count)
        }
    }
}

extension SQL {
    /// `(…)` binding each value, for `IN`; `(NULL)`, which matches nothing, when there are none.
    public static func list(_ values: [SQLValue]) -> SQL {
        guard !values.isEmpty else { return "(NULL)" }
        var list = SQL(stringLiteral: "(")
        for value in values {
            list.binds.append(value)
            list.text += (list.binds.count == 1 ? "" : ", ") + "$\(list.binds.count)"
        }
        list.text += ")"
        return list
    }

    /// `VALUES (…), (…)` binding every row's values (a multi-row insert, or a small table to join). `rows` must not be
    /// empty: SQL has no empty `VALUES`, so callers with nothing to write skip the statement.
    public static func values(_ rows: [[SQLValue]]) -> SQL {
        var values = SQL(stringLiteral: "VALUES ")
        for (index, row) in rows.enumerated() {
            values.text += index == 0 ? "(" : ", ("
            for (column, value) in row.enumerated() {
                values.binds.append(value)
                values.text += (column == 0 ? "" : ", ") + "$\(values.binds.count)"
            }
            values.text += ")"
        }
        return values
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
