import APNSimRules
import Foundation

/// What a provider client (APNSwift, pushy, your own) needs to talk to a ``SimulatedWorld`` as it would to APNs.
public struct ProviderSettings: Sendable, Hashable {
    /// The host to connect to; the TLS server name to check is ``serverName``.
    public var host = "127.0.0.1"
    /// The name on the gateway's certificate: Apple's sandbox host, so a client's usual host check passes.
    public var serverName = "api.sandbox.push.apple.com"
    /// The provider API's port per environment.
    public var ports: [APNsEnvironment: Int]
    /// The CA that issued the gateway's certificate (PEM): trust it instead of the system roots.
    public var caFile: String
    /// Token auth: the .p8 signing key, its key ID and the team that owns it.
    public var p8File: String
    public var keyID = "SIMKEY0001"
    public var teamID = "SIMTEAM001"
    /// The topic the sandbox world's apps answer to.
    public var topic = "com.example.app"

    init(ports: [APNsEnvironment: Int], certs: String) {
        self.ports = ports
        self.caFile = "\(certs)/ca.pem"
        self.p8File = "\(certs)/AuthKey_SIMKEY0001.p8"
        self.certs = certs
    }

    private let certs: String

    /// `https://127.0.0.1:PORT` of an environment's provider API.
    public func url(_ environment: APNsEnvironment = .development) -> String {
        "https://\(host):\(ports[environment] ?? 0)"
    }

    public func port(_ environment: APNsEnvironment = .development) -> Int {
        ports[environment] ?? 0
    }

    /// The .p8 key's PEM text.
    public func p8() throws -> String {
        try String(contentsOfFile: p8File, encoding: .utf8)
    }

    /// Certificate auth: the provider certificate and key (PEM files) for an environment.
    public func certificate(_ environment: APNsEnvironment = .development) -> (certificate: String, key: String) {
        ("\(certs)/provider-\(environment.rawValue).pem", "\(certs)/provider-\(environment.rawValue)-key.pem")
    }
}
