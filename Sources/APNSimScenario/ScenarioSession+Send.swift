import APNSimProvider
import APNSimRules
import APNSimTesting
import Foundation

extension ScenarioSession {
    /// What came of a send: the gateway's answer, or the GOAWAY that ended its connection instead.
    struct SendOutcome {
        var response: ProviderResponse?
        var goAway: GoAwayFrame?
        /// The connection closed under the request without GOAWAY.
        var dropped = false
        /// Nothing came within the step's `unanswered` time, and the provider gave up.
        var unanswered = false
        /// The SETTINGS the gateway sent on the connection, by name (`maxConcurrentStreams`).
        var settings: [String: Int] = [:]
        /// The `apns-id` the request carried, for answers without one (broadcasts).
        var sentID: String?
        var apnsID: String? { response?["apns-id"] ?? sentID }
    }

    /// Sends the step's push over the provider API. A connection the gateway ends (GOAWAY) is forgotten, so the
    /// next send opens a new one, as provider libraries do.
    /// - Parameter giveUpAfter: the step's `unanswered` time, a provider's own timeout.
    func send(_ send: Scenario.Send, giveUpAfter: Duration? = nil) async throws -> SendOutcome {
        if let channel = send.broadcast { return try await broadcast(send, channel: channel) }
        let world = loaded.world
        let token: String
        let environment: APNsEnvironment
        let app: String?
        if let device = send.device, let bundleID = send.app {
            let declared = world.devices.first { $0.id == device }?.apps.first { $0.bundleID == bundleID }
            var (registered, refusal) = try await target.control.install(device: device, app: bundleID)
            // An app removed since: a provider still holds the token it had, and sends to it.
            if registered == nil, refusal == nil { registered = knownTokens["\(device)|\(bundleID)"] }
            guard let registered else {
                throw ScenarioRunError("device \(device) has no token for \(bundleID)" + (refusal.map { ": it refused the app (\($0))" } ?? " (it has not registered)"))
            }
            token = try await activityToken(send, device: device, bundleID: bundleID) ?? registered
            knownTokens["\(device)|\(bundleID)"] = registered
            environment = send.environment ?? declared?.environment ?? .development
            app = bundleID
        } else {
            token = send.token ?? ""
            let record = DeviceToken(token).flatMap { world.tokens[$0] }
            environment = send.environment ?? record?.environment ?? .development
            app = record?.bundleID
        }
        var headers: [(name: String, value: String)] = []
        func add(_ name: String, _ value: String?) {
            if let value, value != "none" { headers.append((name, value)) }
        }
        // The push type a step's target implies: a Live Activity's, the widgets', a control's, or an alert.
        let implied = send.activity != nil || send.pushToStart != nil ? "liveactivity"
            : send.widgets == true ? "widgets" : send.control != nil ? "controls" : "alert"
        add("apns-topic", send.topic ?? (implied == "alert" ? app : app.map { $0 + ".push-type.\(implied)" }))
        add("apns-push-type", send.pushType ?? implied)
        add("apns-priority", send.priority.map(String.init))
        let expiration = send.expiration ?? send.expiresIn.map { Int(Date().timeIntervalSince1970 + clockOffset + $0.seconds) }
        add("apns-expiration", expiration.map(String.init))
        add("apns-collapse-id", send.collapseId)
        add("apns-id", send.apnsID)
        for (name, value) in (send.headers ?? [:]).sorted(by: { $0.key < $1.key }) { headers.append((name.lowercased(), value)) }
        let auth = send.auth ?? Scenario.Auth()
        if auth.certificate == nil, auth.none != true {
            headers.append(("authorization", "bearer \(try jwt(auth))"))
        }
        let payload = try self.payload(send)
        return try await self.send(ProviderRequest.push(token: token, payload: payload, headers: headers), for: send, environment: environment,
                                   giveUpAfter: giveUpAfter)
    }

    /// Sends `request` on the provider connection of `send`'s auth in `environment` (a new one if the last ended).
    /// - Parameter giveUpAfter: a provider's own timeout: with nothing back by then (not even a finished handshake),
    ///   the connection is closed and forgotten, and the outcome says so.
    func send(_ request: ProviderRequest, for send: Scenario.Send, environment: APNsEnvironment,
              giveUpAfter: Duration? = nil) async throws -> SendOutcome {
        let auth = send.auth ?? Scenario.Auth()
        let key = "\(environment.rawValue)|\(auth.certificate ?? "jwt:\(auth.key ?? "SIMKEY0001"):\(auth.team ?? "SIMTEAM001")")"
        lastConnection = key
        var client = try await connection(key, environment: environment, auth: auth, giveUpAfter: giveUpAfter)
        if !client.isActive, giveUpAfter == nil {
            connections[key] = nil
            client = try await connection(key, environment: environment, auth: auth)
        }
        // The provider's timeout: true once it fired and closed the connection.
        let timer = giveUpAfter.map { limit in
            Task { [client] in
                try await Task.sleep(for: limit)
                await client.close()
                return true
            }
        }
        defer { timer?.cancel() }
        do {
            guard client.isActive else { throw ScenarioRunError("the connection did not start") }
            let response = try await client.send(request)
            return SendOutcome(response: response, goAway: nil, settings: client.namedRemoteSettings, sentID: send.apnsID)
        } catch {
            connections[key] = nil
            timer?.cancel()
            let gaveUp = (try? await timer?.value) == true
            if giveUpAfter != nil, !client.isActive, gaveUp || client.closeReason?.contains("did not come in time") == true {
                return SendOutcome(response: nil, goAway: nil, unanswered: true, settings: client.namedRemoteSettings)
            }
            guard let goAway = await client.goAway() else {
                return SendOutcome(response: nil, goAway: nil, dropped: true, settings: client.namedRemoteSettings)
            }
            return SendOutcome(response: nil, goAway: goAway, settings: client.namedRemoteSettings)
        }
    }

    /// The token a send to an activity names: its newest activity of the type, or its push-to-start token for it.
    private func activityToken(_ send: Scenario.Send, device: String, bundleID: String) async throws -> String? {
        if send.widgets == true || send.control != nil {
            let devices = try await target.control.get("/v1/devices").body?.array ?? []
            let app = devices.first { $0["id"]?.string == device }?["apps"]?.array?.first { $0["bundleID"]?.string == bundleID }
            if let kind = send.control {
                guard let token = app?["controlTokens"]?[kind]?.string else {
                    throw ScenarioRunError("\(bundleID) on \(device) has no push token for control \(kind) (does the world declare it under the app's controls?)")
                }
                return token
            }
            guard let token = app?["widgetToken"]?.string else {
                throw ScenarioRunError("\(bundleID) on \(device) has no widget push token (does the world declare widgets for the app?)")
            }
            return token
        }
        if let type = send.pushToStart {
            let devices = try await target.control.get("/v1/devices").body?.array ?? []
            let app = devices.first { $0["id"]?.string == device }?["apps"]?.array?.first { $0["bundleID"]?.string == bundleID }
            guard let token = app?["pushToStartTokens"]?[type]?.string else {
                throw ScenarioRunError("\(bundleID) on \(device) has no push-to-start token for \(type) (does the world declare the type in its activityTypes?)")
            }
            return token
        }
        guard let type = send.activity else { return nil }
        guard let activity = try await newestActivity(device: device, bundleID: bundleID, type: type), let token = activity["token"]?.string else {
            throw ScenarioRunError("\(bundleID) on \(device) has no Live Activity of type \(type) to send to")
        }
        return token
    }

    /// The app's newest Live Activity of `type` on `device`, as `GET /v1/activities` shows it.
    func newestActivity(device: String, bundleID: String, type: String) async throws -> JSONValue? {
        try await newestActivities(devices: [device], bundleID: bundleID, type: type)[device]
    }

    func payload(_ send: Scenario.Send) throws -> String {
        let media = target.media
        if let file = send.payloadFile {
            let path = file.hasPrefix("/") ? file : loaded.directory.appendingPathComponent(file).path
            do {
                let text = try String(contentsOfFile: path, encoding: .utf8)
                return media.map { text.replacingOccurrences(of: "${media}", with: $0) } ?? text
            } catch {
                throw ScenarioRunError("cannot read payloadFile \(path): \(error.localizedDescription)")
            }
        }
        switch send.payload.map({ Pattern.substituting($0, media: media) }) {
        case .string(let text)?:
            return text
        case let value?:
            return value.jsonText
        case nil where send.widgets == true || send.control != nil:
            return #"{"aps":{"content-changed":true}}"#
        case nil:
            return #"{"aps":{"alert":{"title":"apnsim replay","body":"Hello"}}}"#
        }
    }

    /// The JWT for `auth`'s key: made once and kept, as Apple asks, and made again once it is 50 minutes old by the
    /// world's clock, as provider libraries do (Apple: no older than an hour). One backdated with `issuedAgo` is
    /// kept as it is.
    func jwt(_ auth: Scenario.Auth) throws -> String {
        let keyID = auth.key ?? "SIMKEY0001"
        let team = auth.team ?? "SIMTEAM001"
        let p8 = auth.p8.map { $0.hasPrefix("/") ? $0 : loaded.directory.appendingPathComponent($0).path }
            ?? "\(target.certs)/AuthKey_\(keyID).p8"
        let cacheKey = "\(keyID)|\(team)|\(p8)|\(auth.issuedAgo?.description ?? "")"
        let now = Date().addingTimeInterval(clockOffset)
        if let cached = jwts[cacheKey], auth.issuedAgo != nil || ProviderTokenSigner.isFresh(issuedAt: cached.issuedAt, at: now) {
            return cached.token
        }
        let pem: String
        do {
            pem = try String(contentsOfFile: p8, encoding: .utf8)
        } catch {
            throw ScenarioRunError("cannot read the signing key \(p8) for key \(keyID): \(error.localizedDescription)")
        }
        let signer = try ProviderTokenSigner(p8: pem, keyID: keyID, teamID: team)
        let issuedAt = now.addingTimeInterval(-(auth.issuedAgo?.seconds ?? 0))
        let jwt = signer.token(issuedAt: issuedAt)
        jwts[cacheKey] = (jwt, issuedAt)
        return jwt
    }

    private func connection(_ key: String, environment: APNsEnvironment, auth: Scenario.Auth,
                            giveUpAfter: Duration? = nil) async throws -> ProviderClient {
        if let open = connections[key], open.isActive || giveUpAfter == nil { return open }
        guard let port = target.providerPorts[environment] else {
            throw ScenarioRunError("the gateway has no \(environment.rawValue) endpoint")
        }
        var configuration = ProviderClient.Configuration(host: target.host, port: port, caFile: "\(target.certs)/ca.pem")
        if let certificate = auth.certificate {
            let resolve = { (path: String) in path.hasPrefix("/") ? path : self.loaded.directory.appendingPathComponent(path).path }
            guard let key = auth.certificateKey else { throw ScenarioRunError("auth.certificate needs auth.certificateKey") }
            configuration.clientCertificate = (resolve(certificate), resolve(key))
        }
        configuration.setupTimeout = giveUpAfter
        let client = try await ProviderClient.connect(configuration)
        connections[key] = client
        return client
    }
}

/// Why a step could not be carried out (as opposed to an expectation that did not hold).
struct ScenarioRunError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
