import APNSimRules
import APNSimProvider
import Foundation

/// Broadcast channels in scenarios: `channel` steps create and delete them through the channel management API, a
/// `send` with `broadcast` sends on one, and a world device with `count` is a fleet that device actions and
/// `expect: activity` act on as a whole.
extension ScenarioSession {
    /// The devices a world device ID stands for: a fleet's `ID-1` … `ID-N`, or the ID itself.
    func deviceIDs(_ id: String) -> [String] {
        loaded.world.devices.first { $0.id == id }?.deviceIDs ?? [id]
    }

    /// The ID the gateway gave the channel a `channel` step created as `name`.
    func channelID(_ name: String) throws -> String {
        guard let id = channelIDs[name] else {
            throw ScenarioRunError("no channel \(name) was created before this step; add a step with channel: {create: \(name), app: …}")
        }
        return id
    }

    /// A `channel` step: creates (201) or deletes (204) the channel, as the step's `expect.status`/`reason` say or
    /// succeeding by default.
    func channel(_ step: Scenario.ChannelStep, expect: Scenario.Expectation?) async throws -> (happened: String, failures: [String]) {
        let environment = step.environment ?? .development
        let request: ProviderRequest
        if step.create != nil {
            let body = #"{"message-storage-policy":\#(step.storagePolicy ?? 1),"push-type":"LiveActivity"}"#
            request = .channels("POST", bundleID: step.app, body: body, headers: [("authorization", "bearer \(try jwt(Scenario.Auth()))")])
        } else if let name = step.delete {
            request = .channels("DELETE", bundleID: step.app, channelID: try channelID(name),
                                headers: [("authorization", "bearer \(try jwt(Scenario.Auth()))")])
        } else {
            throw ScenarioRunError("a channel step says create: NAME or delete: NAME")
        }
        let response = try await managementConnection(environment).send(request)
        var failures: [String] = []
        let wanted = expect?.status ?? (expect?.reason == nil ? (step.create != nil ? 201 : 204) : nil)
        if let wanted, response.status != wanted {
            failures.append("status: expected \(wanted), got \(response.status)\(response.reason.map { " \($0)" } ?? "")")
        }
        if let reason = expect?.reason, response.reason != reason {
            failures.append("reason: expected \(reason), got \(response.reason ?? "none")")
        }
        if let name = step.create, response.status == 201, let id = response["apns-channel-id"] {
            channelIDs[name] = id
            return ("channel \(name) created: \(id)", failures)
        }
        return (response.status == 204 ? "channel \(step.delete ?? "") deleted" : "\(response.status) \(response.reason ?? "")", failures)
    }

    /// A `send` with `broadcast`: `POST /4/broadcasts/apps/APP` on the provider port, over the connection sends use.
    func broadcast(_ send: Scenario.Send, channel name: String) async throws -> SendOutcome {
        guard let app = send.app else { throw ScenarioRunError("a broadcast names its app (send.app)") }
        let environment = send.environment ?? .development
        var headers: [(name: String, value: String)] = []
        func add(_ name: String, _ value: String?) {
            if let value, value != "none" { headers.append((name, value)) }
        }
        add("apns-push-type", send.pushType ?? "liveactivity")
        add("apns-priority", send.priority.map(String.init))
        add("apns-expiration", (send.expiration ?? send.expiresIn.map { Int(Date().timeIntervalSince1970 + clockOffset + $0.seconds) }).map(String.init))
        // An apns-id of the scenario's own, so the deliveries it fans out to can be found.
        let apnsID = send.apnsID ?? UUID().uuidString
        add("apns-id", apnsID)
        for (name, value) in (send.headers ?? [:]).sorted(by: { $0.key < $1.key }) { headers.append((name.lowercased(), value)) }
        headers.append(("authorization", "bearer \(try jwt(send.auth ?? Scenario.Auth()))"))
        var copy = send
        copy.apnsID = apnsID
        return try await self.send(ProviderRequest.broadcast(bundleID: app, channelID: try channelID(name), payload: try payload(send), headers: headers),
                              for: copy, environment: environment)
    }

    /// The connection to the channel management API of `environment`, opened once and kept.
    private func managementConnection(_ environment: APNsEnvironment) async throws -> ProviderClient {
        let key = "manage|\(environment.rawValue)"
        if let open = connections[key], open.isActive { return open }
        guard let port = target.managementPorts[environment] else {
            throw ScenarioRunError("the gateway has no \(environment.rawValue) channel management endpoint")
        }
        let client = try await ProviderClient.connect(ProviderClient.Configuration(host: target.host, port: port, caFile: "\(target.certs)/ca.pem"))
        connections[key] = client
        return client
    }
}
