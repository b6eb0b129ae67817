import Foundation

/// The column names of one result, shared by its rows.
package final class SQLColumns: Sendable {
    let index: [String: Int]

    package init(_ names: [String]) {
        var index: [String: Int] = [:]
        for (i, name) in names.enumerated() where index[name] == nil { index[name] = i }
        self.index = index
    }
}

/// One result row, read by column name.
public struct SQLRow: Sendable {
    package let columns: SQLColumns
    package let values: [SQLValue]

    package init(columns: SQLColumns, values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of the first column with this name; `.null` when there is none.
    public subscript(_ name: String) -> SQLValue {
        guard let index = columns.index[name] else { return .null }
        return values[index]
    }

    public func string(_ name: String) throws -> String {
        guard let value = optionalString(name) else { throw StoreError.corrupt(column: name) }
        return value
    }

    public func optionalString(_ name: String) -> String? {
        switch self[name] {
        case .text(let s): s
        case .int(let i): String(i)
        case .double(let d): String(d)
        case .null: nil
        }
    }

    public func int(_ name: String) throws -> Int64 {
        guard let value = optionalInt(name) else { throw StoreError.corrupt(column: name) }
        return value
    }

    public func optionalInt(_ name: String) -> Int64? {
        switch self[name] {
        case .int(let i): i
        case .double(let d): Int64(d)
        case .text(let s): Int64(s)
        case .null: nil
        }
    }

    public func bool(_ name: String) throws -> Bool { try int(name) != 0 }

    public func date(_ name: String) throws -> Date { Self.date(milliseconds: try int(name)) }

    public func optionalDate(_ name: String) -> Date? { optionalInt(name).map(Self.date(milliseconds:)) }

    /// Times are stored as integer milliseconds since 1970 on both engines.
    static func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000) }
}

extension Date: SQLBindable {
    public var sqlValue: SQLValue { .int(Int64((timeIntervalSince1970 * 1000).rounded(.down))) }
}
