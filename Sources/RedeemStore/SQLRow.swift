import Foundation
import RedeemCore

/// One result row, read by column name.
public struct SQLRow: Sendable {
    let names: [String]
    let values: [SQLValue]

    init(names: [String], values: [SQLValue]) {
        self.names = names
        self.values = values
    }

    public subscript(_ name: String) -> SQLValue {
        guard let index = names.firstIndex(of: name) else { return .null }
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

    public func date(_ name: String) throws -> Date { Date(milliseconds: try int(name)) }

    public func optionalDate(_ name: String) -> Date? { optionalInt(name).map(Date.init(milliseconds:)) }
}

extension Date: SQLBindable {
    public var sqlValue: SQLValue { .int(millisecondsSince1970) }
}
