import APNSimRules
import APNSimProvider
import APNSimSandbox
import ArgumentParser
import Foundation

/// How `apnsim send` and `apnsim push` reach the gateway and authenticate as a provider.
struct ProviderOptions: ParsableArguments {
    @Option(help: "Gateway host.")
    var host = "127.0.0.1"

    @Option(help: "Gateway port (default 2197 for development, 2198 for production).")
    var port: Int?

    @Option(name: .customLong("server-name"), help: "TLS server name to check the gateway certificate against.")
    var serverName = "api.sandbox.push.apple.com"

    @Option(help: "CA that issued the gateway certificate. Default: ca.pem of the development PKI (Certs/ in a checkout of apnsim, else apnsim's data folder; apnsim certs says where).")
    var ca: String?

    @Option(help: "Provider signing key (.p8) for token auth. Default: AuthKey_SIMKEY0001.p8 of the development PKI.")
    var p8: String?

    @Option(name: .customLong("key-id"), help: "Key ID of the .p8.")
    var keyID = "SIMKEY0001"

    @Option(name: .customLong("team-id"), help: "Team ID that owns the key.")
    var teamID = "SIMTEAM001"

    @Option(help: "Client certificate (PEM) for certificate auth.")
    var cert: String?

    @Option(name: .customLong("cert-key"), help: "Private key (PEM) of --cert.")
    var certKey: String?

    func validate() throws {
        if (cert == nil) != (certKey == nil) { throw ValidationError("--cert and --cert-key go together") }
    }

    /// Sends one push (adding the `authorization` header for token auth) and returns the gateway's answer.
    func send(token: String, payload: String, headers: [(name: String, value: String)],
              environment: APNsEnvironment) async throws -> ProviderResponse {
        try await send(environment: environment, defaultPorts: (2197, 2198)) { authorization in
            .push(token: token, payload: payload, headers: headers + authorization)
        }
    }

    /// Sends the request `make` builds from the `authorization` header (none with certificate auth) to `--port`, or the
    /// environment's default port, and returns the gateway's answer.
    func send(environment: APNsEnvironment, defaultPorts: (development: Int, production: Int),
              _ make: ([(name: String, value: String)]) -> ProviderRequest) async throws -> ProviderResponse {
        // The development PKI's files, found as the gateway finds them, unless named.
        let pki = ca == nil || (p8 == nil && cert == nil) ? try DevelopmentFiles().find(.certs).path : ""
        var configuration = ProviderClient.Configuration(host: host, port: port ?? (environment == .development ? defaultPorts.development : defaultPorts.production),
                                                         caFile: ca ?? "\(pki)/ca.pem")
        configuration.serverHostname = serverName
        var authorization: [(name: String, value: String)] = []
        if let cert, let certKey {
            configuration.clientCertificate = (cert, certKey)
        } else {
            let signer = try ProviderTokenSigner(p8: try readFile(p8 ?? "\(pki)/AuthKey_SIMKEY0001.p8", what: "the .p8 key"), keyID: keyID, teamID: teamID)
            authorization.append(("authorization", "bearer \(signer.token(issuedAt: Date()))"))
        }
        let client = try await ProviderClient.connect(configuration)
        let response = try await client.send(make(authorization))
        await client.close()
        return response
    }

    /// Prints the answer as `apnsim send` does; exits 1 unless it is 200.
    static func report(_ response: ProviderResponse) throws {
        print("status: \(response.status)")
        print("apns-id: \(response["apns-id"] ?? "-")")
        if let uniqueID = response["apns-unique-id"] { print("apns-unique-id: \(uniqueID)") }
        if response.status != 200 {
            print("body: \(response.bodyText)")
            throw ExitCode(1)
        }
    }
}

func readFile(_ path: String, what: String) throws -> String {
    do {
        return try String(contentsOfFile: path, encoding: .utf8)
    } catch {
        throw ValidationError("cannot read \(what) at \(path): \(error.localizedDescription)")
    }
}
