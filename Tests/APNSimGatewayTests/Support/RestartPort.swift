#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A loopback port for a server a test stops and starts again on the same port (a device process keeps linking to
/// it): one below the kernel's ephemeral range (`/proc/sys/net/ipv4/ip_local_port_range`) and free when chosen.
///
/// A port the kernel picked for port 0 went back to that range when its gateway was killed, and before the second
/// gateway bound it, a server another test started on port 0, or a connection's own end, could be given it: the
/// restart then failed with "address already in use", most likely when other work on the machine opened many
/// sockets. The kernel hands out no port below the range for port 0 or a connection, so only a test that names the
/// port can take it, and each test picks at random among 10,000.
enum RestartPort {
    static func pick() throws -> Int {
        let rangeStart = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } } ?? 32_768
        let low = max(rangeStart - 10_000, 1_024)
        for _ in 0..<100 {
            let port = Int.random(in: low..<rangeStart)
            if isFree(port) { return port }
        }
        throw ProcessTestError("no free loopback port below \(rangeStart) in 100 tries")
    }

    /// Whether a socket can bind `port` on 127.0.0.1 now (with SO_REUSEADDR, as the gateway binds).
    private static func isFree(_ port: Int) -> Bool {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var reuse: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
