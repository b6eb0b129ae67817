import Foundation

/// A real HTTP receiver (`webhook_receiver.py`) on 127.0.0.1 that records what it is sent.
public final class WebhookReceiver: @unchecked Sendable {
    public struct Received: Decodable, Sendable {
        public let n: Int
        public let path: String
        public let status: Int
        public let headers: [String: String]
        public let body: String
    }

    public let port: Int
    public let directory: URL
    private let process: Process
    private let input: Pipe

    public var url: String { "http://127.0.0.1:\(port)/hooks" }

    /// Starts a receiver that fails the first `failFirst` requests with 500, runs `body`, then stops it.
    public static func with<T>(failFirst: Int = 0, port: Int? = nil, _ body: (WebhookReceiver) async throws -> T) async throws -> T {
        let receiver = try WebhookReceiver(failFirst: failFirst, port: port)
        defer { receiver.stop() }
        return try await body(receiver)
    }

    private init(failFirst: Int, port: Int?) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("redeem-hooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("webhook_receiver.py")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["python3", script.path, "--dir", directory.path, "--fail-first", String(failFirst)]
            + (port.map { ["--port", String($0)] } ?? [])
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(0x0a) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let first = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard first.hasPrefix("ready "), let port = Int(first.dropFirst(6)) else {
            process.terminate()
            throw SMTPTestServer.StartError(description: "webhook receiver did not start: \(first)")
        }
        self.port = port
    }

    public func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Every request so far, in arrival order.
    public func received() throws -> [Received] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("request-") && $0.hasSuffix(".json") }
            .sorted()
        return try names.map { try JSONDecoder().decode(Received.self, from: Data(contentsOf: directory.appendingPathComponent($0))) }
    }
}
