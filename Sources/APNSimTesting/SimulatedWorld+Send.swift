import APNSimRules
import APNSimProvider
import Foundation

extension SimulatedWorld {
    /// Sends a push as a provider would — token auth with the world's key, over HTTP/2 and TLS — for tests that
    /// have no provider client of their own; returns the gateway's answer (`status`, `reason`, `["apns-id"]`).
    public func send(_ payload: String, to token: String, topic: String? = nil, pushType: String = "alert",
                     environment: APNsEnvironment = .development, headers: [(name: String, value: String)] = []) async throws -> ProviderResponse {
        var configuration = ProviderClient.Configuration(host: provider.host, port: provider.port(environment), caFile: provider.caFile)
        configuration.serverHostname = provider.serverName
        let signer = try ProviderTokenSigner(p8: try provider.p8(), keyID: provider.keyID, teamID: provider.teamID)
        let client = try await ProviderClient.connect(configuration)
        defer { Task { await client.close() } }
        let jwt = signer.token(issuedAt: Date().addingTimeInterval(clockOffset))
        return try await client.send(.push(token: token, payload: payload, headers: [
            ("authorization", "bearer \(jwt)"), ("apns-topic", topic ?? provider.topic), ("apns-push-type", pushType),
        ] + headers))
    }
}
