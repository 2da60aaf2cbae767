import APNSimDeviceLink
import APNSimRules
import APNSimStore
import Foundation
import Hummingbird

/// `GET /v1/devices` and `GET /v1/deliveries`: the simulated devices and what they did with each push.
extension ControlAPI {
    struct DeviceView: Encodable {
        var id: String
        var name: String
        var model: String
        var os: String
        var online: Bool
        /// When the device's current link came up (its session, on a link its process's devices share); absent while
        /// it has none. A device taken offline on request keeps its link.
        var linkedAt: Date?
        /// `own` or `shared` (docs/device-link.md, "Shared links"), while it has a link.
        var link: String?
        var apps: [AppView]
        /// Apps the device would not install, with iOS's reason.
        var refused: [RefusalView]
        /// The user's Focus and Scheduled Summary, as set through the gateway; absent: none.
        var focus: Focus?
        var summary: ScheduledSummary?
        /// In Low Power Mode: its priority-5 pushes are stored until it leaves it.
        var lowPowerMode: Bool
        /// Apps whose notifications the user turned off; absent: none.
        var notificationsOff: [String]?
        /// The replica the device is linked to, when replicas share the store (docs/cluster.md); absent while it is
        /// linked to none, and on a gateway that is the only one.
        var replica: String?
    }

    struct RefusalView: Encodable {
        var bundleID: String
        var kind: InstallCheck.Refusal.Kind
        var message: String
    }

    struct AppView: Encodable {
        var bundleID: String
        var environment: APNsEnvironment
        var token: String
        /// The app's icon badge, as the device last reported it; absent: none.
        var badge: Int?
        /// Its push-to-start token per `ActivityAttributes` type (`event: start` pushes); absent: none.
        var pushToStartTokens: [String: String]?
        /// Its widget push token (`widgets` pushes reload its widgets); absent: its widgets take no pushes.
        var widgetToken: String?
        /// The kinds of the widgets its widget token reloads.
        var widgetKinds: [String]?
        /// When a push last reloaded its widgets; absent: none has.
        var widgetsReloadedAt: Date?
        /// A push token per control kind (`controls` pushes reload that control); absent: none take pushes.
        var controlTokens: [String: String]?
        /// When a push last reloaded each control, by kind; absent: none has.
        var controlsReloadedAt: [String: Date]?
        /// What is left of its priority-10 Live Activity budget now, once a push to one of its activities reported it.
        var activityBudget: BudgetView?
    }

    struct BudgetView: Encodable {
        var perHour: Int
        var remaining: Int
    }

    /// When each control of `tokens` was last reloaded, by kind; `nil` when none was.
    static func reloads(of tokens: [String: DeviceToken]?, in reloads: [DeviceToken: Date]) -> [String: Date]? {
        let reloaded = (tokens ?? [:]).compactMapValues { reloads[$0] }
        return reloaded.isEmpty ? nil : reloaded
    }

    func addDeviceRoutes(to v1: RouterGroup<BasicRequestContext>) {
        v1.get("devices") { request, _ in
            let now = self.clock.now()
            let listed = self.devices.devices
            let replicas = self.forwarding.map { self.devices.replicas(of: Set(listed.map(\.descriptor.id)), named: $0.links.name) } ?? [:]
            if self.store.isShared {
                // What this answer shows is written before it goes: a token listed here is one any replica can read
                // (docs/cluster.md), so a push sent through another at once is not refused for it.
                try await self.deliveries.flush()
            }
            let views = listed.map { device in
                DeviceView(id: device.descriptor.id, name: device.descriptor.name, model: device.descriptor.model,
                           os: device.descriptor.os, online: device.session != nil, linkedAt: device.linkedAt,
                           link: (device.session ?? device.parked).map { $0.address == nil ? "own" : "shared" },
                           apps: device.apps.map {
                               AppView(bundleID: $0.bundleID, environment: $0.environment, token: $0.token.hex,
                                       badge: device.badges[$0.bundleID], pushToStartTokens: $0.pushToStartTokens?.mapValues(\.hex),
                                       widgetToken: $0.widgetToken?.hex, widgetKinds: $0.widgetKinds,
                                       widgetsReloadedAt: $0.widgetToken.flatMap { device.widgetReloads[$0] },
                                       controlTokens: $0.controlTokens?.mapValues(\.hex),
                                       controlsReloadedAt: Self.reloads(of: $0.controlTokens, in: device.widgetReloads),
                                       activityBudget: device.activityBudgets[$0.bundleID].map {
                                           BudgetView(perHour: $0.perHour, remaining: $0.remaining(at: now))
                                       })
                           },
                           refused: device.refusals.values.sorted { $0.bundleID < $1.bundleID }.map {
                               RefusalView(bundleID: $0.bundleID, kind: $0.kind, message: $0.message)
                           }, focus: device.focus, summary: device.summary, lowPowerMode: device.lowPowerMode,
                           notificationsOff: device.notificationsOff.isEmpty ? nil : device.notificationsOff.sorted(),
                           replica: replicas[device.descriptor.id])
            }
            guard let forwarding = self.forwarding, request.headers[ReplicaForwarding.forwardedBy] == nil else {
                return try ControlJSON.response(views)
            }
            // Any replica lists them all: each device as the replica it is linked to says it is.
            return try await forwarding.devices(views, asked: request)
        }
        v1.get("deliveries") { request, _ in try await self.deliveryRecords(request) }
        v1.post("devices/:id/apps") { request, context in
            try await self.install(request, device: context.parameters.get("id") ?? "")
        }
        v1.delete("devices/:id/apps/:bundleID") { _, context in
            try self.uninstall(device: context.parameters.get("id") ?? "", bundleID: context.parameters.get("bundleID") ?? "")
        }
        v1.post("devices/:id/restart") { _, context in try self.send(.restart(.init()), to: context.parameters.get("id") ?? "") }
        v1.post("devices/:id/foreground") { request, context in
            try await self.foreground(request, device: context.parameters.get("id") ?? "", inForeground: true)
        }
        v1.post("devices/:id/background") { request, context in
            try await self.foreground(request, device: context.parameters.get("id") ?? "", inForeground: false)
        }
        v1.post("devices/:id/focus") { request, context in
            let focus: Focus
            do {
                focus = try await ControlJSON.decode(Focus.self, from: request)
            } catch let error as ControlAPIError {
                return ControlJSON.error(error.description + #"; give {"name", "allowedApps"}"#)
            }
            guard !focus.name.trimmingCharacters(in: .whitespaces).isEmpty else {
                return ControlJSON.error("a Focus needs a name, such as Do Not Disturb, Sleep or Work")
            }
            return try self.setFocus(focus, device: context.parameters.get("id") ?? "")
        }
        v1.delete("devices/:id/focus") { _, context in try self.setFocus(nil, device: context.parameters.get("id") ?? "") }
        v1.post("devices/:id/apps/:bundleID/notifications") { request, context in
            struct Setting: Decodable { var enabled: Bool }
            let setting: Setting
            do {
                setting = try await ControlJSON.decode(Setting.self, from: request)
            } catch let error as ControlAPIError {
                return ControlJSON.error(error.description + #"; give {"enabled": false} or {"enabled": true}"#)
            }
            let (device, bundle) = (context.parameters.get("id") ?? "", context.parameters.get("bundleID") ?? "")
            guard self.devices.setNotifications(setting.enabled, of: bundle, on: device) else {
                return ControlJSON.error("no device \(device)", status: .notFound)
            }
            struct State: Encodable { var id: String; var bundleID: String; var notifications: Bool }
            return try ControlJSON.response(State(id: device, bundleID: bundle, notifications: setting.enabled))
        }
        v1.post("devices/:id/low-power") { _, context in try self.setLowPower(context.parameters.get("id") ?? "", true) }
        v1.delete("devices/:id/low-power") { _, context in try self.setLowPower(context.parameters.get("id") ?? "", false) }
        v1.post("devices/:id/offline") { _, context in try self.setOffline(context.parameters.get("id") ?? "", true) }
        v1.post("devices/:id/online") { _, context in try self.setOffline(context.parameters.get("id") ?? "", false) }
    }

    private struct ForegroundRequest: Decodable {
        var bundleID: String
        var options: [String]?
    }

    /// `POST /v1/devices/{id}/foreground {"bundleID","options"}` and `…/background {"bundleID"}`: the app comes to the
    /// foreground, where its willPresent decides what a push shows (`options`, none by default), or leaves it.
    private func foreground(_ request: Request, device: String, inForeground: Bool) async throws -> Response {
        let body: ForegroundRequest
        do {
            body = try await ControlJSON.decode(ForegroundRequest.self, from: request)
        } catch let error as ControlAPIError {
            return ControlJSON.error(error.description + "; give {\"bundleID\", \"options\": [\"banner\", \"list\", \"sound\", \"badge\"]}")
        }
        // Checked for background too, where they do nothing: a bad value is an error wherever it is given.
        if let unknown = body.options?.first(where: { !DeviceLinkMessage.Foreground.knownOptions.contains($0) }) {
            return ControlJSON.error("options are banner, list, sound and badge; got \(unknown)")
        }
        return try send(.foreground(.init(bundleID: body.bundleID, options: inForeground ? (body.options ?? []) : nil)), to: device)
    }

    /// Sends a control message down a connected device's link.
    private func send(_ message: DeviceLinkMessage.ToDevice, to device: String) throws -> Response {
        guard let link = devices.link(of: device) else {
            return ControlJSON.error("device \(device) is not connected", status: .conflict)
        }
        link.send(message)
        return try ControlJSON.response(["status": "sent", "device": device, "message": message.type])
    }

    /// The body of `POST /v1/devices/{id}/apps`: a whole manifest (with `profile`), or the short form
    /// `{"bundleID", "environment", "team"}` for a correctly signed app.
    private struct InstallRequest: Decodable {
        var bundleID: String
        var environment: APNsEnvironment?
        var team: String?
    }

    /// The manifest a `POST /v1/devices/{id}/apps` body describes: a whole manifest when it has a `profile` (or
    /// `apsEnvironment`), else the short form, each read with a sentence naming what is wrong.
    static func manifest(from body: Data, world: WorldRegistry, now: Date) throws(ControlAPIError) -> AppManifest {
        let keys = (try? JSONSerialization.jsonObject(with: body) as? [String: Any]).map { Set($0.filter { !($0.value is NSNull) }.keys) } ?? []
        if keys.contains("profile") || keys.contains("apsEnvironment") {
            let full = try ControlJSON.decode(AppManifest.self, from: body, foundationDates: true)
            if let problem = NotificationCategory.problems(full.categories ?? []).first {
                throw ControlAPIError("\(full.bundleID)'s categories: \(problem)")
            }
            try Self.checkBundleID(full.bundleID)
            return full
        }
        let short: InstallRequest
        do {
            short = try ControlJSON.decode(InstallRequest.self, from: body)
        } catch {
            throw ControlAPIError(error.description + #"; give {"bundleID", "environment", "team"} or a whole app manifest with a profile"#)
        }
        try Self.checkBundleID(short.bundleID)
        if let team = short.team, team.isEmpty { throw ControlAPIError("team is empty; give the team ID the app is signed with") }
        guard let team = short.team ?? world.read({ $0.apps[short.bundleID]?.team }) else {
            throw ControlAPIError("\(short.bundleID) is not in the world; give its team")
        }
        var manifest = AppManifest.signed(bundleID: short.bundleID, team: team, environment: short.environment ?? .development, now: now)
        // As the world's app registers them (the short form installs the app without its extension).
        let declared = world.read { $0.apps[short.bundleID] }
        manifest.categories = declared?.categories
        manifest.appGroups = declared?.appGroups
        manifest.activityTypes = declared?.activityTypes
        manifest.infoPlist = declared?.infoPlist
        return manifest
    }

    /// A bundle ID as Apple allows them: letters, digits, hyphens and periods, not empty.
    static func checkBundleID(_ bundleID: String) throws(ControlAPIError) {
        guard !bundleID.isEmpty, bundleID.count <= 255,
              bundleID.unicodeScalars.allSatisfy({ ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "-" || $0 == "." })
        else {
            throw ControlAPIError("bundleID \"\(bundleID.prefix(80))\" is not a bundle ID (letters, digits, hyphens and periods)")
        }
    }

    private func install(_ request: Request, device: String) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        let manifest: AppManifest
        let wait: Duration
        do {
            wait = try ControlQuery.installWait(request.queryValues, otherwise: installWait)
            manifest = try Self.manifest(from: Data(body.readableBytesView), world: world, now: clock.now())
        } catch {
            return ControlJSON.error(error.description)
        }
        guard let link = devices.link(of: device) else {
            return ControlJSON.error("device \(device) is not connected; start it first (apnsim device --id \(device))", status: .conflict)
        }
        switch await requests.ask(.install(manifest), awaiting: .install(device: device, bundleID: manifest.bundleID), on: link, timeout: wait) {
        case .answered(.installed(let token)):
            return try ControlJSON.response(AppView(bundleID: manifest.bundleID, environment: manifest.apsEnvironment ?? .development,
                                                    token: token.hex))
        case .answered(.refused(let refusal)):
            return try ControlJSON.response(["error": refusal.message, "kind": refusal.kind.rawValue], status: .unprocessableContent)
        case .answered(.interacted), .answered(.summarized), .answered(.activities):
            preconditionFailure("an install is answered by the app's registration or refusal alone")
        case .sessionEnded:
            // The device's state changed under the request: a conflict, not a failure of the gateway.
            return ControlJSON.error("device \(device) went offline before it answered about \(manifest.bundleID); install it again once it is back",
                                     status: .conflict)
        case .timedOut:
            // The install goes on (a Swift extension's build can outlast any wait): accepted, not failed.
            struct Pending: Encodable { var status = "pending", device: String, bundleID: String, detail: String }
            return try ControlJSON.response(Pending(device: device, bundleID: manifest.bundleID,
                                                    detail: "device \(device) had not answered about \(manifest.bundleID) within \(String(format: "%g", wait.inSeconds)) s; it may still install it (GET /v1/devices shows the outcome), or ask with a longer ?wait="),
                                            status: .accepted)
        }
    }

    private func uninstall(device: String, bundleID: String) throws -> Response {
        guard let registration = devices.registration(of: device, bundleID: bundleID) else {
            return ControlJSON.error("device \(device) has no registered \(bundleID)", status: .notFound)
        }
        let now = clock.now()
        devices.unregister(registration.token, device: device, at: uninstallDelay.tokenEnd(removedAt: now))
        let at = uninstallDelay.unregisteredFrom(removedAt: now)
        devices.link(of: device)?.send(.uninstall(.init(bundleID: bundleID)))
        // Absent until the device tells APNs, when the gateway waits for that (the default).
        struct Removed: Encodable { var token: String; var unregisteredFrom: Date? }
        return try ControlJSON.response(Removed(token: registration.token.hex, unregisteredFrom: at))
    }

    /// `POST`/`DELETE /v1/devices/{id}/focus`: the user turns a Focus on, or off.
    private func setFocus(_ focus: Focus?, device: String) throws -> Response {
        if let problem = actions.setFocus(focus, device: device) { return ControlJSON.error(problem, status: .conflict) }
        return try ControlJSON.response(["status": "sent", "device": device, "message": "focus"])
    }

    /// `POST`/`DELETE /v1/devices/{id}/low-power`: the device enters Low Power Mode, or leaves it.
    private func setLowPower(_ device: String, _ on: Bool) throws -> Response {
        guard devices.setLowPowerMode(on, of: device, now: clock.now()) else {
            return ControlJSON.error("no device \(device)", status: .notFound)
        }
        struct State: Encodable { var id: String; var lowPowerMode: Bool }
        return try ControlJSON.response(State(id: device, lowPowerMode: on))
    }

    private func setOffline(_ device: String, _ offline: Bool) throws -> Response {
        guard devices.setOffline(device, offline, now: clock.now()) else {
            return ControlJSON.error("no device \(device)", status: .notFound)
        }
        struct State: Encodable { var id: String; var online: Bool }
        return try ControlJSON.response(State(id: device, online: !offline))
    }

    /// Deliveries, oldest first. With `wait=SECONDS` the answer waits (up to 60 s) until at least one matching
    /// delivery has its receipt, so a test can send and then ask, with no sleep in between.
    private func deliveryRecords(_ request: Request) async throws -> Response {
        let (filter, wait, count): (DeliveryFilter, Duration, Int)
        do {
            (filter, wait, count) = try ControlQuery.deliveryFilter(request.queryValues)
        } catch {
            return ControlJSON.error(error.description)
        }
        let found = try await deliveries.deliveries(matching: filter, count: wait > .zero ? count : 0, until: ContinuousClock.now + wait)
        return try ControlJSON.response(found)
    }
}
