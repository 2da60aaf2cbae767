import APNSimDeviceLink
import APNSimRules
import Foundation

/// One simulated device's rules, as a value: what it has (apps, tokens, refusals, what it shows) and what it does
/// with each event of its device link (docs/device-link.md). Every event returns what to do about it (``Actions``):
/// messages for the gateway, extensions to build or run, whether every app now has its token. It does no network
/// I/O and starts no task; ``DeviceHost`` keeps it under a lock and carries out its actions, and unit tests drive it
/// with plain values, as `DeviceRegistry` is in the gateway.
struct DeviceState: Sendable {
    /// What the device's owner decided, not changed by events.
    struct Settings: Sendable {
        var device: DeviceDescriptor
        /// Apps whose notification settings have alerts off: iOS starts no service extension for them.
        var alertsOff: Set<String> = []
        /// Skip a service extension for a push whose category is not among its `UNNotificationExtensionCategory`.
        var extensionCategoriesApply = false
    }

    /// What an event asks for.
    struct Actions: Sendable {
        /// Messages for the gateway, in order, after the copies of ``attachments``.
        var send: [DeviceLinkMessage.Written] = []
        /// Receipts in ``send`` already written (the device keeps each answer as its JSON, ``ReceiptMemo``), by ID:
        /// framed from these bytes, not written again.
        var written: [String: DeviceLinkMessage.Receipt.Compact] = [:]
        /// Attachments the device shows whose bytes go to the gateway before ``send`` (read from their files by the
        /// host: the inbox then shows the device's own copy).
        var attachments: [NotificationContent.Attachment] = []
        /// Extension work to start: kind `swift` builds and service-extension runs, each ending in an event.
        var jobs: [Job] = []
        /// Every app has its token or its refusal from this event on: whoever waits for that may go on.
        var registered = false
        /// The device restarts: its extension processes end and its link drops (the device links again).
        var restart = false
        /// What the device keeps across restarts changed (``saved``): its ``DeviceData`` keeps it.
        var save = false
        /// Wake the device at this time to deliver its Scheduled Summary (``summaryDue(_:generation:now:)``).
        var summaryWake: (at: Date, generation: Int)?

        mutating func append(_ other: Actions) {
            send += other.send
            written.merge(other.written) { mine, _ in mine }
            attachments += other.attachments
            jobs += other.jobs
            registered = registered || other.registered
            restart = restart || other.restart
            save = save || other.save
            summaryWake = other.summaryWake ?? summaryWake
        }
    }

    /// Extension work an event starts, whose end is another event.
    enum Job: Sendable {
        /// Build the app's kind `swift` extension and its own delegate, then ``built(_:failure:)``.
        case build(AppManifest)
        /// Run the app's extension on the push, and ask its delegate how to present it when the app is in the
        /// foreground (``presentsThroughDelegate(_:)``), then ``extensionFinished(_:delivery:payload:content:run:presented:now:)``.
        case run(AppManifest, PushPayload, DeviceLinkMessage.Delivery)
        /// Hand the response to the app's delegate and POST it to the app's forward URL (each when the app has one),
        /// then ``responded(_:)``.
        case respond(InteractionRecord, NotificationList.Displayed, AppManifest)
    }

    /// What the device does with one push.
    enum PushAnswer: Sendable {
        /// Its receipts, at once.
        case receipts([DeviceLinkMessage.Receipt])
        /// The app's extension starts on it; a pending ack goes now and the receipt when it is done.
        case launch(AppManifest, PushPayload)
        /// A push sent again while its extension still runs: another pending ack.
        case stillInExtension
        /// A push sent again that the device answered before and no longer remembers how: an ack saying so.
        case forgotten
    }

    let settings: Settings
    private(set) var center: NotificationList
    private var installations: Installations
    private(set) var categories: RegisteredCategories
    /// Apps that have registered their manifest's categories since this device started (as an app does when it launches).
    private var launched: Set<String> = []
    private(set) var tokens: [String: DeviceToken] = [:]
    private(set) var refusals: [String: InstallCheck.Refusal] = [:]
    /// For testing delivery guarantees: pushes still to drop the link on before answering.
    private var linkDropsLeft: Int
    /// The apps on the device: the configured ones, then whatever the gateway installs or removes.
    private(set) var apps: [AppManifest]
    /// Whether the link to the gateway is up (between its `welcome` and its end).
    private(set) var isLinked = false
    /// Messages finished while the link was down; sent after the next `welcome`.
    private(set) var outbox: [DeviceLinkMessage.Written] = []
    /// Pushes whose service extension is running; one sent again meanwhile is not run twice.
    private var inExtension: Set<String> = []
    /// Attachments (by SHA-256) whose copy went to the gateway on this link; each goes once per link.
    private var copied: Set<String> = []
    /// Counts the Scheduled Summaries set: a wake for one set before the latest does nothing.
    private var summaryGeneration = 0

    init(settings: Settings, apps: [AppManifest], center: NotificationList = NotificationList(),
         saved: DeviceData.Saved = DeviceData.Saved(), linkDrops: Int = 0) {
        self.settings = settings
        self.apps = apps
        self.center = center
        self.installations = saved.installations
        self.categories = saved.categories
        self.linkDropsLeft = linkDrops
    }

    /// What the device keeps across restarts.
    var saved: DeviceData.Saved {
        DeviceData.Saved(installations: installations, categories: categories)
    }

    /// Every app has its token, or iOS refused it.
    var isRegistered: Bool {
        apps.allSatisfy { tokens[$0.bundleID] != nil || refusals[$0.bundleID] != nil }
    }

    // MARK: - The link

    /// The gateway welcomed the device: every app registers (or is refused, or starts building), and what finished
    /// while the link was down goes out after the registrations.
    mutating func linked(now: Date) -> Actions {
        isLinked = true
        copied.removeAll()
        var actions = Actions()
        for app in apps { actions.append(install(app, now: now)) }
        actions.send += outbox
        outbox.removeAll()
        actions.registered = actions.registered || isRegistered
        return actions
    }

    /// The link ended; what finishes from now on waits in the outbox.
    mutating func unlinked() {
        isLinked = false
    }

    /// Messages that could not be written (the link closed under them): they go after the next `welcome`.
    mutating func unsent(_ messages: [DeviceLinkMessage.Written]) {
        outbox += messages
    }

    /// Messages finished outside a link event (an extension's receipts, a build's registration): sent now when the link
    /// is up, kept in the outbox when it is not.
    private mutating func sendWhenLinked(_ messages: [DeviceLinkMessage.Written], attachments: [NotificationContent.Attachment] = [],
                                         into actions: inout Actions) {
        guard isLinked else {
            outbox += messages
            return
        }
        actions.attachments += attachments.filter { $0.file != nil && copied.insert($0.sha256).inserted }
        actions.send += messages
    }

    // MARK: - Messages from the gateway

    /// The device's answer to one message from the gateway (not a `carry`: ``answer(_:payload:now:)`` takes each of
    /// its pushes); throwing ends the link with that error.
    mutating func handle(_ message: DeviceLinkMessage.ToDevice, now: Date) throws(DeviceError) -> Actions {
        switch message {
        case .welcome:
            return linked(now: now)
        case .registered(let registered):
            tokens[registered.bundleID] = registered.token
            center.setPushToStartTokens(registered.pushToStartTokens ?? [:], for: registered.bundleID)
            center.setWidgetTokens(registered, for: registered.bundleID)
            return Actions(registered: isRegistered)
        case .push(let delivery):
            if linkDropsLeft > 0 {
                linkDropsLeft -= 1
                throw DeviceError("dropping the link before acknowledging push \(delivery.id) (dropLinkBeforeAcknowledging)")
            }
            // Two statements: in one, `self` was copied for the outer call before the argument's mutation ran, so every
            // collection the mutation touched was copied whole (a fifth of a device's instructions a push).
            let order = orderBefore(delivery, startsPossible: true)
            let answer = answer(delivery, now: now)
            var actions = actions(answering: delivery, with: answer)
            if let (report, beforeReceipt) = reordered(delivery, from: order) {
                if beforeReceipt { actions.send.insert(.activities(report), at: 0) } else { actions.send.append(.activities(report)) }
            }
            return actions
        case .heartbeat(let beat):
            return Actions(send: [.heartbeatAck(beat)])
        case .install(let app):
            apps.removeAll { $0.bundleID == app.bundleID }
            apps.append(app)
            refusals[app.bundleID] = nil
            let forgot = categories.uninstall(app.bundleID)  // installed again: it registers its categories afresh
            launched.remove(app.bundleID)
            var actions = install(app, now: now)
            actions.save = actions.save || forgot
            return actions
        case .uninstall(let uninstall):
            apps.removeAll { $0.bundleID == uninstall.bundleID }
            let forgot = [installations.uninstall(uninstall.bundleID), categories.uninstall(uninstall.bundleID)].contains(true)
            refusals[uninstall.bundleID] = nil
            guard let token = tokens.removeValue(forKey: uninstall.bundleID) else { return Actions(save: forgot) }
            return Actions(send: [.unregister(.init(token: token))], save: forgot)
        case .foreground(let foreground):
            center.foreground[foreground.bundleID] = foreground.options.map { Set($0.compactMap(PresentationOption.init(rawValue:))) }
            return Actions()
        case .startActivity(let start):
            center.start(start.activity)
            return Actions(send: [.activities(center.activityReport(for: start.activity.bundleID))])
        case .endActivity(let end):
            center.end(end)
            return Actions(send: [.activities(center.activityReport(for: end.bundleID))])
        case .restart:
            // A reboot: the apps' extension processes end and the link drops; the device links again at once.
            return Actions(restart: true)
        case .interact(let interact):
            return self.interact(interact)
        case .focus(let change):
            center.focus = change.focus
            return Actions()
        case .summary(let change):
            center.summary = change.summary
            summaryGeneration += 1
            return Actions(summaryWake: change.summary?.next(after: now).map { ($0, summaryGeneration) })
        case .deliverSummary(let request):
            let delivered = center.deliverSummary(due: nil)
            return Actions(send: [.summarized(summaryDelivery(id: request.id, scheduledFor: nil, delivered, now: now))])
        case .heartbeatAck:
            return Actions()  // the answer to the device's heartbeat: the link is alive, which its arrival already said
        case .error(let error):
            throw DeviceError("the gateway ended the link: \(error.reason): \(error.explanation)")
        case .carry:
            // The host reads a carry's pushes itself, each through answer(_:payload:now:) (DeviceHost+Carry).
            preconditionFailure("a carry reached a device's state; its host takes each of its pushes")
        }
    }

    // MARK: - Scheduled Summary

    /// The Scheduled Summary's time `due` came (for the summary set `generation`th): what waited for it is delivered,
    /// and the device wakes again at its next time.
    mutating func summaryDue(_ due: Date, generation: Int, now: Date) -> Actions {
        guard generation == summaryGeneration, let summary = center.summary else { return Actions() }
        var actions = Actions(summaryWake: summary.next(after: max(due, now)).map { ($0, generation) })
        let delivered = center.deliverSummary(due: due)
        guard !delivered.isEmpty else { return actions }  // iOS delivers no empty summary
        sendWhenLinked([.summarized(summaryDelivery(id: UUID().uuidString, scheduledFor: due, delivered, now: now))], into: &actions)
        return actions
    }

    private func summaryDelivery(id: String, scheduledFor: Date?, _ delivered: [SummaryDelivery.Item], now: Date) -> SummaryDelivery {
        let what = delivered.isEmpty ? "no notification was waiting" : "\(delivered.count) notification(s), highest relevance-score first"
        let when = scheduledFor.map { "at its time, \($0.formatted(.iso8601))" } ?? "on request"
        return SummaryDelivery(id: id, device: settings.device.id, scheduledFor: scheduledFor, at: now, notifications: delivered,
                               detail: "the Scheduled Summary was delivered \(when): \(what)")
    }

    // MARK: - Interactions

    /// The user answers a displayed notification: the record goes to the gateway at once, or once the app's delegate
    /// has handled it and the app has forwarded it to its `responses.forward` URL (``responded(_:)``).
    private mutating func interact(_ interact: DeviceLinkMessage.Interact) -> Actions {
        let shown = center.shown.last { $0.apnsID == interact.apnsID }
        let app = apps.first { $0.bundleID == shown?.bundleID }
        switch center.interact(interact, device: settings.device.id, categories: shown.map { categories[$0.bundleID] } ?? [],
                               urlKeys: app?.responses?.urlKeys) {
        case .success(let record):
            if record.delivered, let app, let shown, app.responses?.forward != nil || app.responses?.delegate != nil {
                return Actions(jobs: [.respond(record, shown, app)])
            }
            return Actions(send: [.interacted(.init(id: interact.id, record: record))])
        case .failure(let refusal):
            return Actions(send: [.interacted(.init(id: interact.id, refusal: refusal.description))])
        }
    }

    /// The app's delegate handled the response and the app forwarded it: its record, with what the delegate did and
    /// what the forward URL answered, goes to the gateway.
    func responded(_ record: InteractionRecord) -> Actions {
        var record = record
        if let delegate = record.delegate {
            // What the app's own code opens is what the app opens.
            if let url = delegate.opened.first { (record.opened, record.openedBy) = (url, delegate.class) }
            record.detail += "; " + delegate.diagnostic
                + (delegate.opened.isEmpty ? "" : "; it opened " + delegate.opened.joined(separator: ", "))
        }
        if let forwarded = record.forwarded {
            record.detail += "; forwarded to \(forwarded.url): " + (forwarded.status.map { "answered \($0)" } ?? forwarded.error ?? "no answer")
                + (forwarded.attempts > 1 ? " (attempt \(forwarded.attempts) of \(Forwarded.attemptsAllowed))" : "")
        }
        return Actions(send: [.interacted(.init(id: record.id, record: record))])
    }

    // MARK: - Pushes

    /// What the device does with a push: its receipts at once, or its extension starts on it.
    /// `payload`: the delivery's payload, when the caller has read it (once for a broadcast's carried pushes).
    mutating func answer(_ delivery: DeviceLinkMessage.Delivery, payload: PushPayload? = nil, now: Date) -> PushAnswer {
        if center.answeredAndForgotten(delivery.id) { return .forgotten }
        let decision = serviceExtension(for: delivery, payload: payload)
        // A push answered before gets the same receipt (without an extension, the list itself sees to that).
        if decision.involvesExtension, let receipt = center.receipt(for: delivery.id) { return .receipts([receipt]) }
        switch decision {
        case .none:
            if let app = apps.first(where: { $0.bundleID == delivery.bundleID }), presentsThroughDelegate(app),
               let payload = payload ?? (try? PushPayload(json: Array(delivery.payload.utf8))), payload.content.hasVisibleAlert {
                return inExtension.insert(delivery.id).inserted ? .launch(app, payload) : .stillInExtension
            }
            return .receipts(center.receive(delivery, payload: payload, now: now, categories: categories[delivery.bundleID],
                                            app: apps.first { $0.bundleID == delivery.bundleID }))
        case .launch(let app, let payload):
            return inExtension.insert(delivery.id).inserted ? .launch(app, payload) : .stillInExtension
        case .notLaunched(let manifest, let payload, let why):
            let run = ExtensionRun(ran: false, kind: manifest.kind, outcome: .notLaunched, diagnostic: why)
            return .receipts(center.receive(delivery, payload: payload, now: now, processed: (payload.content, run),
                                            categories: categories[delivery.bundleID], app: apps.first { $0.bundleID == delivery.bundleID }))
        }
    }

    /// The order `delivery`'s app's activities are shown in before it, when it is a `liveactivity` push that may change
    /// it (``reordered(_:from:)``); `startsPossible`: it may start one (a broadcast cannot).
    func orderBefore(_ delivery: DeviceLinkMessage.Delivery, startsPossible: Bool) -> [String]? {
        delivery.pushType == .liveactivity ? center.activityOrder(of: delivery.bundleID, ifAtLeast: startsPossible ? 1 : 2) : nil
    }

    /// After `delivery`, the report of its app's activities when it changed the order they are shown in from `before`,
    /// and whether it goes before the push's receipt (``NotificationList/activityReport(for:ifReorderedFrom:)``).
    func reordered(_ delivery: DeviceLinkMessage.Delivery, from before: [String]?) -> (DeviceLinkMessage.ActivityReport, beforeReceipt: Bool)? {
        before.flatMap { center.activityReport(for: delivery.bundleID, ifReorderedFrom: $0) }
    }

    /// `answer` as messages: the receipts come at once (a receipt acknowledges its push), or a pending ack while the
    /// app's extension runs (docs/device-link.md).
    func actions(answering delivery: DeviceLinkMessage.Delivery, with answer: PushAnswer) -> Actions {
        switch answer {
        case .receipts(let receipts):
            return Actions(send: Self.messages(receipts, answering: delivery.id), written: center.written(receipts, answering: delivery.id))
        case .launch(let app, let payload):
            return Actions(send: [.ack(.init(id: delivery.id, pending: true))], jobs: [.run(app, payload, delivery)])
        case .stillInExtension:
            return Actions(send: [.ack(.init(id: delivery.id, pending: true))])
        case .forgotten:
            return Actions(send: [.ack(.init(id: delivery.id, forgotten: true))])
        }
    }

    /// `receipts` as messages, in the order they go to the gateway: those about other pushes (the one this push
    /// replaced) first, this push's own last. The gateway records each receipt as it arrives, and a reader of the record may look between two
    /// of them: one waiting for this push's outcome (`GET /v1/deliveries?wait=`) then saw the older push still
    /// `displayed`, which it had already replaced on the device (a test did, on a busy machine). Sent last, this push's
    /// outcome is recorded after what it did to the others.
    static func messages(_ receipts: [DeviceLinkMessage.Receipt], answering deliveryID: String) -> [DeviceLinkMessage.Written] {
        let own = receipts.count > 1 && receipts.first?.id == deliveryID
        return (own ? Array(receipts.dropFirst()) + [receipts[0]] : receipts).map { .receipt($0) }
    }

    /// Whether a push for `app` waits for its delegate's `willPresent`: the app is in the foreground and runs its own
    /// delegate, whose options then decide instead of the device's `foreground` setting.
    func presentsThroughDelegate(_ app: AppManifest) -> Bool {
        app.responses?.delegate != nil && center.foreground[app.bundleID] != nil
    }

    /// The app's extension (`run`; none when the app has none) and its delegate (`presented`: what `willPresent` did,
    /// when the app is in the foreground) are done with `delivery`: the device shows what they made, and the receipts
    /// go (the attachments it shows first) now, or after the next `welcome`.
    mutating func extensionFinished(_ app: AppManifest, delivery: DeviceLinkMessage.Delivery, payload: PushPayload,
                                    content: NotificationContent, run: ExtensionRun?, presented: DelegateRun? = nil, now: Date) -> Actions {
        inExtension.remove(delivery.id)
        // Categories the extension set are the app's from now on, this push's buttons included.
        if let registered = run?.registeredCategories { categories.set(registered, for: app.bundleID) }
        let receipts = center.receive(delivery, payload: payload, now: now, processed: run.map { (content, $0) }, categories: categories[app.bundleID],
                                      app: app, presented: presented)
        let shown = receipts.first { $0.id == delivery.id && $0.outcome == .displayed }?.content?.attachments ?? []
        var actions = Actions(save: run?.registeredCategories != nil)
        sendWhenLinked(Self.messages(receipts, answering: delivery.id), attachments: shown, into: &actions)
        if isLinked { actions.written = center.written(receipts, answering: delivery.id) }
        return actions
    }

    private enum ExtensionDecision {
        /// The app has no extension, or the push is not an alert.
        case none
        /// The app's extension runs on the push.
        case launch(AppManifest, PushPayload)
        /// iOS would skip the extension; the record says why.
        case notLaunched(ServiceExtensionManifest, PushPayload, String)

        var involvesExtension: Bool {
            if case .none = self { false } else { true }
        }
    }

    /// Whether iOS would start the app's extension for an alert push (``ServiceExtensionManifest/reasonNotLaunched``).
    /// `payload`: the delivery's payload when the caller has read it (a carried push's, read once for a broadcast's
    /// pushes), not read a second time here.
    private func serviceExtension(for delivery: DeviceLinkMessage.Delivery, payload read: PushPayload?) -> ExtensionDecision {
        guard delivery.pushType == .alert,
              let app = apps.first(where: { $0.bundleID == delivery.bundleID }), let manifest = app.serviceExtension,
              let payload = read ?? (try? PushPayload(json: Array(delivery.payload.utf8))) else { return .none }
        let deviceSettings = ServiceExtensionManifest.DeviceSettings(alertsEnabled: !settings.alertsOff.contains(app.bundleID),
                                                                     categoriesApply: settings.extensionCategoriesApply)
        if let why = manifest.reasonNotLaunched(payload: payload, deviceOS: settings.device.os, settings: deviceSettings) {
            return .notLaunched(manifest, payload, why)
        }
        return .launch(app, payload)
    }

    // MARK: - Installing

    /// Installs `app` if iOS would: a registration to send, or the refusal to report; a build first for a kind `swift`
    /// extension or the app's own delegate (``built(_:failure:)`` answers when it is done).
    private mutating func install(_ app: AppManifest, now: Date) -> Actions {
        if let refusal = InstallCheck.refusal(for: app, now: now) {
            return Actions(send: [refuse(app, refusal)])
        }
        if app.serviceExtension?.kind == .swift || app.responses?.delegate != nil {
            return Actions(jobs: [.build(app)])
        }
        let (messages, changed) = registration(app)
        return Actions(send: messages, save: changed)
    }

    /// The app's own Swift extension and delegate were built (`failure`: which did not, and the compiler's messages):
    /// the app registers, or is refused.
    mutating func built(_ app: AppManifest, failure: String?) -> Actions {
        guard apps.contains(app) else { return Actions() }  // removed or replaced while it built
        let (messages, changed) = failure.map { failure in
            ([refuse(app, .init(kind: .extensionBuild, description: failure))], false)
        } ?? registration(app)
        var actions = Actions(registered: isRegistered, save: changed)
        sendWhenLinked(messages, into: &actions)
        return actions
    }

    private mutating func refuse(_ app: AppManifest, _ refusal: InstallCheck.Refusal) -> DeviceLinkMessage.Written {
        refusals[app.bundleID] = refusal
        return .installRefused(.init(bundleID: app.bundleID, kind: refusal.kind, message: refusal.description))
    }

    /// The app's `register`, then its Live Activities when it has any (a gateway that restarted learns them again), and
    /// whether what the device keeps changed (a new installation, the categories it launched with).
    private mutating func registration(_ app: AppManifest) -> ([DeviceLinkMessage.Written], changed: Bool) {
        // Installed, the app launches and registers its categories, replacing those it or its extension registered
        // before (apps call setNotificationCategories at launch). An app whose manifest names none keeps them.
        var changed = false
        if launched.insert(app.bundleID).inserted, let categories = app.categories, self.categories[app.bundleID] != categories {
            self.categories.set(categories, for: app.bundleID)
            changed = true
        }
        let installation = installations.id(for: app.bundleID)
        let message = DeviceLinkMessage.Written.register(.init(bundleID: app.bundleID, environment: app.apsEnvironment ?? .development,
                                                       installation: installation.id, team: app.team, badge: center.badges[app.bundleID],
                                                       pushToStartTypes: app.activityTypes?.map(\.name),
                                                       widgetKinds: app.declaration.widgets.flatMap { $0.takesPushes ? $0.kinds : nil },
                                                       controlKinds: app.declaration.controls.flatMap { $0.takesPushes ? $0.kinds : nil }))
        let report = center.activityReport(for: app.bundleID)
        return (report.activities.isEmpty ? [message] : [message, .activities(report)], changed || installation.made)
    }
}
