import PostgresNIO
import Synchronization

/// Names for the statements the store sends, so each connection parses and plans a statement once and then only binds
/// and executes it. Unnamed statements are planned again on every request, and planning the redemption's joins cost
/// ten times their execution. A process names at most `limit` distinct texts; later ones go unnamed, so statements
/// built from variable lists cannot fill PostgreSQL's memory.
final class PostgresStatements: Sendable {
    private let limit: Int
    private let names = Mutex<[Key: String]>([:])

    private struct Key: Hashable {
        let text: String
        let types: [PostgresDataType]
    }

    init(limit: Int = 512) { self.limit = limit }

    /// The statement's name, or nil when it should be sent unnamed. The parameter types are part of the key: a
    /// parameter bound as NULL is typed by the server, so the same text with a value there is another statement.
    func name(for text: String, types: [PostgresDataType]) -> String? {
        let key = Key(text: text, types: types)
        return names.withLock { names in
            if let name = names[key] { return name }
            guard names.count < limit else { return nil }
            let name = "redeem_\(names.count + 1)"
            names[key] = name
            return name
        }
    }
}

/// The statement being executed, read by `NamedStatement`'s static requirements: PostgresNIO's prepared-statement
/// API takes its name and text from the type, and the store's statements are built at run time.
enum CurrentStatement {
    struct Value: Sendable {
        var name: String
        var sql: String
        var types: [PostgresDataType]
    }

    @TaskLocal static var value = Value(name: "", sql: "", types: [])
}

struct NamedStatement: PostgresPreparedStatement {
    typealias Row = PostgresRow
    static var name: String { CurrentStatement.value.name }
    static var sql: String { CurrentStatement.value.sql }
    static var bindingDataTypes: [PostgresDataType] { CurrentStatement.value.types }

    let bindings: PostgresBindings
    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}
