#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOPosix

/// The gateway replicas a device may link to (docs/cluster.md, "Which replica a device links to"): each gateway it is
/// given, its name resolved to every address it has, each address one replica. A name is resolved again before every
/// attempt to link, so a replica that moved (a Kubernetes pod started again) is found at its new address.
struct GatewayEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The name the device was given: what TLS checks the gateway's certificate against, and what logs show.
    var name: String
    var address: SocketAddress

    var description: String {
        let ip = address.ipAddress ?? name
        return ip == name ? "\(name):\(address.port ?? 0)" : "\(name) (\(ip)):\(address.port ?? 0)"
    }

    /// The server name TLS checks: a host name, not an address (the development certificates name 127.0.0.1 too).
    var serverName: String? { name.contains(where: \.isLetter) ? name : nil }

    /// Every replica of `gateways`, in their order, each name's addresses in the resolver's; the IPv4 ones alone when a
    /// name has both (`localhost` is one gateway, not two). A name that does not resolve now is left out and named in
    /// `unresolved`.
    static func resolve(_ gateways: [DeviceFleet.Gateway]) async -> (endpoints: [GatewayEndpoint], unresolved: [String]) {
        var endpoints: [GatewayEndpoint] = [], unresolved: [String] = []
        for gateway in gateways {
            let addresses = (try? await NIOThreadPool.singleton.runIfActive { Self.addresses(of: gateway.host, port: gateway.port) }) ?? []
            if addresses.isEmpty { unresolved.append("\(gateway.host):\(gateway.port)") }
            let preferred = addresses.contains { $0.protocol == .inet } ? addresses.filter { $0.protocol == .inet } : addresses
            for address in preferred where !endpoints.contains(where: { $0.address == address }) {
                endpoints.append(GatewayEndpoint(name: gateway.host, address: address))
            }
        }
        return (endpoints, unresolved)
    }

    /// `host`'s addresses for TCP (getaddrinfo): an address given as one is itself.
    private static func addresses(of host: String, port: Int) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var found: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            if let raw = info.pointee.ai_addr {
                switch Int32(raw.pointee.sa_family) {
                case AF_INET:
                    raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { found.append(SocketAddress($0.pointee, host: host)) }
                case AF_INET6:
                    raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { found.append(SocketAddress($0.pointee, host: host)) }
                default:
                    break
                }
            }
            entry = info.pointee.ai_next
        }
        return found
    }

    /// Where a link's attempts start among the replicas: its home, which it goes back to whenever it links again.
    enum Home: Sendable {
        /// A device's own link: by its ID, the same replica while the replicas are the same, spread evenly over many
        /// devices (FNV-1a).
        case device(String)
        /// Link `number` of a process's shared links: the links of one process go to the replicas in turn, from a place
        /// set by the process's group ID, so the processes of a fleet do not all start at the first.
        case shared(group: String, number: Int)

        func start(among count: Int) -> Int {
            guard count > 1 else { return 0 }
            switch self {
            case .device(let id): return Int(Self.hash(id) % UInt64(count))
            case .shared(let group, let number): return Int((Self.hash(group) % UInt64(count) + UInt64(number)) % UInt64(count))
            }
        }

        private static func hash(_ key: String) -> UInt64 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in key.utf8 {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01b3
            }
            return hash
        }
    }

    /// `endpoints` in the order a link tries them: its home first, then the ones after it, round.
    static func inOrder(_ endpoints: [GatewayEndpoint], home: Home) -> [GatewayEndpoint] {
        let start = home.start(among: endpoints.count)
        return Array(endpoints[start...] + endpoints[..<start])
    }
}
