#if canImport(Glibc)
import APNSimTestKit
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
        throw HarnessError("no free loopback port below \(rangeStart) in 100 tries")
    }

    /// Whether a socket can bind `port` on 127.0.0.1 now, as the gateway binds it.
    private static func isFree(_ port: Int) -> Bool {
        guard let (descriptor, _) = LoopbackSocket.bound(to: port, reuseAddress: true) else { return false }
        close(descriptor)
        return true
    }
}
