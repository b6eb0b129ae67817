import Foundation
import Testing

/// The `redeem-example` executable, run as a subprocess. Not built by the tests: `swift build`
/// (or `swift build --build-tests`, as `scripts/test.sh` runs) builds it.
enum ExampleBinary {
    struct Run: Sendable, CustomStringConvertible {
        let status: Int32
        let stdout: String
        let stderr: String
        var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
    }

    /// `<repo>/.build/debug/redeem-example`, found from this file's path.
    static var path: String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // RedeemKitIntegrationTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // repository root
            .appendingPathComponent(".build/debug/redeem-example").path
    }

    static func run(_ arguments: [String]) async throws -> Run {
        try #require(
            FileManager.default.isExecutableFile(atPath: path),
            "\(path) is missing: build it first with `swift build` (scripts/test.sh runs `swift build --build-tests`, which builds all products)"
        )
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("redeem-example-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("stdout")
        let err = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: out)
        let errHandle = try FileHandle(forWritingTo: err)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outHandle
        process.standardError = errHandle
        // Waits without blocking a thread of the cooperative pool, which serves the in-process server too.
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        try outHandle.close()
        try errHandle.close()
        return Run(
            status: status,
            stdout: try String(contentsOf: out, encoding: .utf8),
            stderr: try String(contentsOf: err, encoding: .utf8)
        )
    }
}
