import Foundation
import RedeemCore
import RedeemServer
import Testing

/// `ErrorCode` is the one table of error codes: the docs and the OpenAPI document are checked against it.
@Suite struct ErrorCodeTableTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The table in docs/errors.md, row for row, as `ErrorCode` gives it.
    static var expectedTable: String {
        (["| code | status | meaning |", "|---|---|---|"] + ErrorCode.allCases.map { "| \($0.rawValue) | \($0.status) | \($0.meaning) |" })
            .joined(separator: "\n")
    }

    @Test func docsListEveryCodeAsTheEnumSaysIt() throws {
        let doc = try String(contentsOf: Self.root.appendingPathComponent("docs/errors.md"), encoding: .utf8)
        let table = doc.components(separatedBy: "\n").filter { $0.hasPrefix("|") }.joined(separator: "\n")
        #expect(table == Self.expectedTable, "docs/errors.md's table should be:\n\(Self.expectedTable)")
    }

    @Test func everyCodeTheDocumentShowsExists() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("Sources/RedeemServer/Resources/openapi.yaml"), encoding: .utf8)
        let shown = Set(text.matches(of: /\bcode: (7\d{3})\b/).map { Int($0.output.1)! })
        #expect(shown.count > 10)
        #expect(shown.subtracting(ErrorCode.allCases.map(\.rawValue)).sorted() == [], "codes in openapi.yaml that ErrorCode lacks")
    }

    @Test func statusesAreErrorStatuses() {
        for code in ErrorCode.allCases { #expect((400...599).contains(code.status), "\(code)") }
    }
}
