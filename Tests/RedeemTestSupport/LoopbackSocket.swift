import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP socket bound to a free 127.0.0.1 port, to test failures without a real server.
/// Bound only: connecting is refused. Listening: connections open but nobody ever answers.
// Unchecked: tests close it from one task at a time.
public final class LoopbackSocket: @unchecked Sendable {
    public let port: Int
    private var descriptor: Int32

    public init(listening: Bool) throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(descriptor, raw, length) == 0 && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard descriptor >= 0, bound, !listening || listen(descriptor, 8) == 0 else {
            #if canImport(Glibc)
            if descriptor >= 0 { _ = Glibc.close(descriptor) }
            #else
            if descriptor >= 0 { _ = Darwin.close(descriptor) }
            #endif
            throw SMTPTestServer.StartError(description: "could not set up a loopback socket: errno \(errno)")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Waits until a client connects (on a thread of its own, not the tasks' pool), then keeps that connection open
    /// and silent: a test waits on the event itself rather than on a guess at how long connecting takes.
    public func acceptedConnection() async -> Int32 {
        let listening = descriptor
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: accept(listening, nil, nil)) }
        }
    }

    /// Closes the socket; call it (e.g. in a `defer`) to keep the socket open until then.
    public func close() {
        if descriptor >= 0 {
            #if canImport(Glibc)
            _ = Glibc.close(descriptor)
            #else
            _ = Darwin.close(descriptor)
            #endif
            descriptor = -1
        }
    }

    deinit { close() }
}
