import Foundation

/// A real SMTP server (Python's aiosmtpd, `smtp_test_server.py`) on 127.0.0.1 for one test.
///
/// `REDEEM_TEST_PYTHON` picks the interpreter (default `python3` on PATH).
public final class SMTPTestServer: @unchecked Sendable {
    /// A TCP port on 127.0.0.1 that nothing listens on right now.
    public static func freePort() throws -> Int {
        let socket = try LoopbackSocket(listening: false)
        defer { socket.close() }
        return socket.port
    }

    public struct Options {
        public var authUser: String?
        public var authPassword: String?
        public var authMechanism: String?
        /// "starttls" or "implicit".
        public var tls: String?
        /// A fixed port, e.g. one a server was told about before this one started; free port when nil.
        public var port: Int?

        public init(authUser: String? = nil, authPassword: String? = nil, authMechanism: String? = nil, tls: String? = nil, port: Int? = nil) {
            self.port = port
            self.authUser = authUser
            self.authPassword = authPassword
            self.authMechanism = authMechanism
            self.tls = tls
        }
    }

    public struct StartError: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public let port: Int
    public let directory: URL
    private let process: Process
    private let input: Pipe

    /// The self-signed certificate a TLS server presents.
    public var certificatePath: String { directory.appendingPathComponent("cert.pem").path }

    /// Starts a server, runs `body`, then stops the server and removes its directory.
    public static func with<T>(_ options: Options = Options(), _ body: (SMTPTestServer) async throws -> T) async throws -> T {
        let server = try SMTPTestServer(options)
        defer { server.stop() }
        return try await body(server)
    }

    private init(_ options: Options) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("redeem-smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("smtp_test_server.py")
        var arguments = [ProcessInfo.processInfo.environment["REDEEM_TEST_PYTHON"] ?? "python3", script.path, "--dir", directory.path]
        if let user = options.authUser { arguments += ["--auth-user", user, "--auth-password", options.authPassword ?? ""] }
        if let mechanism = options.authMechanism { arguments += ["--auth-mechanism", mechanism] }
        if let tls = options.tls { arguments += ["--tls", tls] }
        if let port = options.port { arguments += ["--port", String(port)] }

        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        input = Pipe()
        let output = Pipe()
        let errorLog = directory.appendingPathComponent("server.log")
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorLog)
        try process.run()

        // Blocks until the script prints its first line or exits.
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        let first = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard first.hasPrefix("ready "), let port = Int(first.dropFirst(6)) else {
            process.terminate()
            process.waitUntilExit()
            let log = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: directory)
            if first.hasPrefix("aiosmtpd-missing") {
                throw StartError(description: "the SMTP tests need Python's aiosmtpd: \(first)")
            }
            throw StartError(description: "SMTP test server did not start: \(first)\n\(log)")
        }
        self.port = port
    }

    public func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Messages received so far, in order of arrival.
    public func received() throws -> [ReceivedMail] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix("message-") && $0.hasSuffix(".json") }
            .sorted { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try names.map { name in
            try decoder.decode(ReceivedMail.self, from: Data(contentsOf: directory.appendingPathComponent(name)))
        }
    }
}
