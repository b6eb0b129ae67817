#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tries the listening address before anything else happens (migrations above all), so a busy port fails at once
/// with the setting named rather than with NIO's error after the database was changed.
enum PortCheck {
    static func ensureFree(host: String, port: Int) throws(ConfigurationError) {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else {
            throw ConfigurationError(setting: Setting.host.name, reason: "'\(host)' is not an address this machine can listen on")
        }
        defer { freeaddrinfo(first) }
        let address = first.pointee
        let fd = socket(address.ai_family, address.ai_socktype, address.ai_protocol)
        guard fd >= 0 else { return }  // cannot test; the real bind will report
        defer { close(fd) }
        var on: Int32 = 1
        // As NIO binds: with SO_REUSEADDR, so a port in TIME_WAIT after a restart counts as free.
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, address.ai_addr, address.ai_addrlen) == 0 else {
            let reason = errno == EADDRINUSE ? "is already in use by another process" : "cannot be listened on (\(String(cString: strerror(errno))))"
            throw ConfigurationError(setting: Setting.port.name, reason: "\(host):\(port) \(reason)")
        }
    }
}
