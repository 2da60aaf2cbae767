import APNSimDeviceLink
import APNSimRules
import Foundation

/// The registry's one token table (``DeviceRegistry/tokens``): each token's app, environment, state, kind and holder,
/// and the index of the tokens each device holds, which only ``hold(_:by:)`` and ``retire(_:from:at:)`` change. The
/// validator reads the table (``DeviceRegistry/validated``); the router asks it where a push goes.
extension DeviceRegistry {
    /// Adds tokens as the world's own (`POST /v1/tokens`), each replacing what the table had for it; a token a
    /// device holds keeps its kind and holder. Nothing is added when any would name an app the world does not
    /// declare, or the set is too large: the sentences say why.
    mutating func declare(_ declared: DeclaredTokens, now: Date) -> [String] {
        switch declared {
        case .set(let set):
            if let problem = set.problem(in: world) { return [problem] }
            world.tokenSets.append(set)
            set.forEachToken { token in
                tokens[token] = .init(token: token, bundleID: set.bundleID, environment: set.environment)
            }
        case .records(let records):
            let strangers = records.filter { world.apps[$0.bundleID] == nil }
            guard strangers.isEmpty else {
                return strangers.prefix(20).map { "token \($0.token.short) names app \($0.bundleID), which is not declared under apps" }
            }
            for var record in records {
                if record.state == .active {
                    record.invalidSince = nil
                } else if record.invalidSince == nil {
                    record.invalidSince = now
                }
                if let held = tokens[record.token] { (record.kind, record.holder) = (held.kind, held.holder) }
                tokens[record.token] = record
            }
        }
        return []
    }

    /// Device `device` holds `record`'s token from now on, active, whoever held it before: the table says so, and the
    /// device's index lists it (and the former holder's no longer does).
    mutating func hold(_ record: World.TokenRecord, by device: String) {
        var record = record
        (record.state, record.invalidSince, record.holder) = (.active, nil, .device(device))
        if let previous = tokens[record.token]?.holder?.device, previous != device {
            devices.inPlace(previous) { $0.tokens.removeAll { $0 == record.token } }
        }
        tokens[record.token] = record
        devices.inPlace(device) { device in
            if !device.tokens.contains(record.token) { device.tokens.append(record.token) }
        }
    }

    /// A token of an app removed from `device`: no device holds it, and it answers 410 from `date` on (one already not
    /// active keeps its date). One another device holds by now stays with it.
    mutating func retire(_ token: DeviceToken, from device: String, at date: Date) {
        devices.inPlace(device) { $0.tokens.removeAll { $0 == token } }
        guard var record = tokens[token], record.holder?.device == device else { return }
        record.holder = .removed(from: device, at: date)
        if record.state == .active { (record.state, record.invalidSince) = (.unregistered, date) }
        tokens[token] = record
    }

    /// The records of the tokens device `id` holds whose app is `bundleID` (every app's when `nil`), oldest first.
    func records(heldBy id: String, bundleID: String? = nil) -> [World.TokenRecord] {
        (devices[id]?.tokens ?? []).compactMap { token in
            tokens[token].flatMap { $0.holder?.device == id && (bundleID == nil || $0.bundleID == bundleID) ? $0 : nil }
        }
    }

    /// App `bundleID`'s device token among `held`, the tokens device `id` holds: what a broadcast to one of its
    /// activities is addressed to.
    func deviceToken(among held: [DeviceToken], of id: String, bundleID: String) -> World.TokenRecord? {
        for token in held {
            guard let record = tokens[token], record.kind == .device, record.bundleID == bundleID, record.holder?.device == id else { continue }
            return record
        }
        return nil
    }

    /// Device `id`'s registered apps, by bundle ID, as the table has them: each app's device token and its
    /// push-to-start tokens by type.
    func apps(of id: String) -> [DeviceLinkMessage.Registered] {
        Self.apps(from: records(heldBy: id))
    }

    /// The apps whose tokens `records` are, by bundle ID.
    private static func apps(from records: [World.TokenRecord]) -> [DeviceLinkMessage.Registered] {
        var apps: [String: DeviceLinkMessage.Registered] = [:]
        for record in records where record.kind == .device {
            apps[record.bundleID] = .init(bundleID: record.bundleID, environment: record.environment, token: record.token)
        }
        for record in records {
            guard var app = apps[record.bundleID] else { continue }
            switch record.kind {
            case .pushToStart(let type): app.pushToStartTokens = (app.pushToStartTokens ?? [:]).merging([type: record.token]) { $1 }
            case .widgets(let kinds): (app.widgetToken, app.widgetKinds) = (record.token, kinds)
            case .control(let kind): app.controlTokens = (app.controlTokens ?? [:]).merging([kind: record.token]) { $1 }
            case .declared, .device, .activity: continue
            }
            apps[record.bundleID] = app
        }
        return apps.values.sorted { $0.bundleID < $1.bundleID }
    }

    /// App `bundleID` on `device` as registered: its device token and push-to-start tokens, read from the table.
    func registration(of device: String, bundleID: String) -> DeviceLinkMessage.Registered? {
        Self.apps(from: records(heldBy: device, bundleID: bundleID)).first
    }

    /// The widget or control token of `device` whose widgets or control `reload` reloaded: the one whose kinds it names.
    func reloaded(_ reload: WidgetReload, on device: String) -> DeviceToken? {
        records(heldBy: device).first { record in
            switch record.kind {
            case .widgets(let kinds): kinds == reload.kinds
            case .control(let kind): [kind] == reload.kinds
            case .declared, .device, .pushToStart, .activity: false
            }
        }?.token
    }

    /// Where a push to `token` goes now.
    func destination(of token: DeviceToken) -> Destination {
        switch tokens[token]?.holder {
        case .device(let device)?: .device(device)
        case .removed(let device, let date)?: .removed(FormerHolder(device: device, bundleID: tokens[token]?.bundleID ?? "", removedAt: date))
        case nil: .none
        }
    }
}
