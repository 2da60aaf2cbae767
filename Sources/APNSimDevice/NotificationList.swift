import APNSimDeviceLink
import APNSimRules
import Foundation

/// What one simulated device shows, and the path each push takes through it (Apple, "Generating a remote notification",
/// https://developer.apple.com/documentation/usernotifications/generating-a-remote-notification): alerts are displayed,
/// a push with the `apns-collapse-id` of a displayed one replaces it, `thread-id` groups, `badge` sets the icon badge
/// (0 clears it), background pushes wake the app and show nothing, VoIP pushes go to PushKit, Live Activity pushes
/// update the activity.
///
/// A value: ``receive(_:now:processed:)`` takes a push, with what the app's service extension made of it when one
/// ran, and returns the receipts to send.
public struct NotificationList: Sendable {
    public struct Displayed: Sendable, Hashable {
        public var deliveryID: String
        /// The `apns-id` of the push that showed it: what a tap or a dismiss names it by.
        public var apnsID: String
        /// `apns-collapse-id` when the push had one, else its `apns-id` (iOS: the request identifier).
        public var identifier: String
        public var bundleID: String
        public var content: NotificationContent
        /// Its group and thread, banner and list, as its receipt said.
        public var presentation: Presentation
        /// When it arrived.
        public var arrived: Date
        /// The Scheduled Summary time it waits for (``Presentation/summary`` as a date); `nil` once delivered, or when it
        /// never waited.
        var summaryDue: Date?
    }

    /// Newest first.
    public var displayed: [Displayed] { shown.reversed() }
    /// What is shown, oldest first (appending is cheap), at most ``displayedLimit`` after each push.
    var shown: [Displayed] = []
    /// The app and request identifier of each notification in ``shown``, so that a push finds the one its collapse ID
    /// replaces without comparing itself with every notification shown (a search of the whole list per push was a
    /// fifth of a device process's time in `Benchmarks/e2e.sh` profiles).
    private var shownIdentifiers: Set<Prehashed<ShownIdentifier>> = []

    private struct ShownIdentifier: Hashable {
        var bundleID: String
        var identifier: String
    }
    /// How many notifications of one app the list keeps; its older ones leave it, as Notification Center does not keep
    /// everything forever. Apple publishes no number. apnsim keeps the newest 100 of each app (`apnsim device
    /// --notification-limit`), so that a device under long load reaches its size in under a minute at two pushes a
    /// second and stays there (`Benchmarks/soak.sh`); one app's flood never pushes out another app's notifications. The
    /// gateway's record keeps every delivery either way.
    public var displayedLimit = 100
    /// How many notifications of each app ``shown`` holds.
    private var shownPerApp: [String: Int] = [:]
    /// The Live Activity state per app (its latest `content-state`) for `liveactivity` pushes sent to the app's device
    /// token, as apnsim took them before activities had tokens of their own; absent when none came.
    public private(set) var activities: [String: JSONValue] = [:]
    /// The Live Activities on the device, by ID: started by an app, updated and ended by pushes to their tokens.
    public internal(set) var liveActivities: [String: LiveActivity] = [:]
    /// How many priority-10 Live Activity updates an app may have an hour (``ActivityBudget``); `nil` turns throttling
    /// off. A throttled update is recorded as such and not applied (iOS may deliver it later; apnsim does not).
    public var activityBudget: ActivityBudget? = ActivityBudget()
    var activitySpending: [String: ActivityBudget.Spending] = [:]
    /// The apps' push-to-start tokens: which app and attributes type each starts an activity of.
    var pushToStart: [DeviceToken: (bundleID: String, type: String)] = [:]
    /// The apps' widget and control push tokens: which app's widgets, or which control, each reloads.
    var widgetTokens: [DeviceToken: WidgetTarget] = [:]
    /// Each app's widget reloads of the last 24 hours, against its daily budget.
    var widgetBudgets: [String: WidgetReloadBudget] = [:]

    /// The icon badge per app; absent means no badge.
    public private(set) var badges: [String: Int] = [:]

    /// Apple: background pushes are throttled, "no more than two or three per hour" ("Pushing background updates to
    /// your App", https://developer.apple.com/documentation/usernotifications/pushing-background-updates-to-your-app).
    /// apnsim wakes an app at most `count` times per `period`; further background pushes are dropped with a reason.
    /// `nil` turns throttling off.
    public var backgroundBudget: BackgroundBudget? = BackgroundBudget(count: 3, period: 3600)
    private var backgroundWakes: [String: [Date]] = [:]

    /// Apps in the foreground, with the options their `userNotificationCenter(_:willPresent:)` returns
    /// (`banner`, `list`, `sound`, `badge`). An app absent here is in the background.
    public var foreground: [String: Set<PresentationOption>] = [:]
    /// The Focus the user has on, if any: it holds the notifications of the apps it does not allow (``Interruption``).
    public var focus: Focus?
    /// The user's Scheduled Summary, if any: the notifications of its apps wait for its next time, unless they break
    /// through (``deliverSummary(due:now:)``).
    public var summary: ScheduledSummary?

    public struct BackgroundBudget: Sendable, Hashable, Codable {
        public var count: Int
        public var period: TimeInterval
        public init(count: Int, period: TimeInterval) {
            self.count = count
            self.period = period
        }
    }

    public init() {}

    /// Notifications of one thread of one app, newest first.
    public func thread(_ threadID: String, of bundleID: String) -> [Displayed] {
        displayed.filter { $0.bundleID == bundleID && $0.content.threadID == threadID }
    }

    /// The receipts already sent: a push the gateway sends again (its `ack` was lost) is answered with the same receipt
    /// and not shown twice.
    private var answered = ReceiptMemo()

    /// The receipt already sent for `deliveryID`, if any: a push sent again gets it and nothing else happens.
    public func receipt(for deliveryID: String) -> DeviceLinkMessage.Receipt? { answered.receipt(for: deliveryID) }

    /// Of `receipts`, the answer to `deliveryID` (the first, as ``receive(_:payload:now:processed:categories:app:presented:)``
    /// returns them) as the device keeps it, written, by its ID: framed from those bytes, it is not written again.
    public func written(_ receipts: [DeviceLinkMessage.Receipt], answering deliveryID: String) -> [String: DeviceLinkMessage.Receipt.Compact] {
        guard let first = receipts.first, let compact = answered.compact(for: deliveryID),
              !receipts.dropFirst().contains(where: { $0.id == first.id }) else { return [:] }
        return [first.id: compact]
    }

    /// Whether `deliveryID` was answered before the receipts kept whole (``receipt(for:)`` has none for it).
    public func answeredAndForgotten(_ deliveryID: String) -> Bool { answered.forgot(deliveryID) }

    /// - Parameter processed: what the app's service extension made of the push, when one ran.
    /// - Parameter payload: the delivery's payload when the caller has already read it.
    /// - Parameter categories: the categories the app has registered, which decide the buttons a notification shows.
    /// - Parameter app: the app the push is for, whose Live Activity types and Info.plist decide what a `liveactivity`
    ///   push may do.
    public mutating func receive(_ delivery: DeviceLinkMessage.Delivery, payload: PushPayload? = nil, now: Date = Date(),
                                 processed: (content: NotificationContent, run: ExtensionRun)? = nil,
                                 categories: [NotificationCategory] = [], app: AppManifest? = nil,
                                 presented: DelegateRun? = nil) -> [DeviceLinkMessage.Receipt] {
        if let receipt = answered.receipt(for: delivery.id) { return [receipt] }
        let badged = delivery.pushType != .liveactivity  // a Live Activity push never sets the app's badge
        let badgeBefore = badged ? badges[delivery.bundleID] : nil
        var receipts = path(of: delivery, payload: payload, now: now, processed: processed, categories: categories, app: app,
                            presented: presented)
        if let index = receipts.firstIndex(where: { $0.id == delivery.id }) {
            if let processed { receipts[index].extensionRun = processed.run }
            // The gateway shows the app's badge from receipts (docs/device-link.md): a push that changed it says so.
            if badged && badges[delivery.bundleID] != badgeBefore {
                receipts[index].badge = .init(bundleID: delivery.bundleID, count: badges[delivery.bundleID] ?? 0)
            }
        }
        if let first = receipts.first { answered.remember(first, for: delivery.id) }
        return receipts
    }

    /// What iOS shows a notification with when its app is not in the foreground; made once, not for every push.
    private static let inTheBackground: Set<PresentationOption> = [.banner, .list]

    private mutating func path(of delivery: DeviceLinkMessage.Delivery, payload read: PushPayload?, now: Date,
                               processed: (content: NotificationContent, run: ExtensionRun)?,
                               categories: [NotificationCategory], app: AppManifest?, presented: DelegateRun?) -> [DeviceLinkMessage.Receipt] {
        let payload: PushPayload
        do {
            payload = try read ?? PushPayload(json: Array(delivery.payload.utf8))
        } catch {
            return [.init(id: delivery.id, outcome: .dropped, content: nil, detail: "the device could not read the payload: \(error)")]
        }
        var content = payload.content
        switch delivery.pushType {
        case .voip, .pushtotalk:
            return [.init(id: delivery.id, outcome: .voip, content: content, detail: "delivered to the app's PushKit handler")]
        case .widgets, .controls:
            return [widgetReceipt(delivery, payload: payload, now: now, app: app)]
        case .liveactivity:
            if let receipt = activityReceipt(delivery, payload: payload, now: now, app: app) { return [receipt] }
            // The activity's state: `content-state` replaces it on update, `end` ends it (ActivityKit).
            let event = payload.aps["event"]?.string ?? "update"
            let state = payload.aps["content-state"]
            if event == "end" {
                activities[delivery.bundleID] = nil
            } else if let state {
                activities[delivery.bundleID] = state
            }
            let stateText = state.flatMap { try? String(decoding: JSONEncoder().encode($0), as: UTF8.self) } ?? "{}"
            return [.init(id: delivery.id, outcome: .liveactivity, content: content,
                          detail: "Live Activity \(event), content-state \(stateText)")]
        default:
            break
        }
        if delivery.pushType == .background || (payload.contentAvailable && !content.hasVisibleAlert && content.badge == nil
                                                  && content.sound == nil) {
            if let budget = backgroundBudget {
                let recent = (backgroundWakes[delivery.bundleID] ?? []).filter { now.timeIntervalSince($0) < budget.period }
                guard recent.count < budget.count else {
                    backgroundWakes[delivery.bundleID] = recent
                    return [.init(id: delivery.id, outcome: .dropped, content: content,
                                  detail: "background push throttled: \(budget.count) already woke the app in the last \(Int(budget.period)) s (Apple allows two or three an hour; apnsim device --background-budget changes it)")]
                }
                backgroundWakes[delivery.bundleID] = recent + [now]
            }
            return [.init(id: delivery.id, outcome: .background, content: content,
                          detail: "the app was woken in the background; nothing is shown")]
        }
        if payload.mutableContent && content.hasVisibleAlert, let processed {
            if processed.run.suppressed {
                return [.init(id: delivery.id, outcome: .suppressed, content: content,
                              detail: "the service extension filtered the push out (empty content, filtering entitlement)")]
            }
            content = processed.content
        }
        if let badge = content.badge {
            badges[delivery.bundleID] = badge == 0 ? nil : badge
        }
        guard content.hasVisibleAlert else {
            return [.init(id: delivery.id, outcome: .displayed, content: content,
                          detail: "no alert text: only the badge or sound changed")]
        }
        // The buttons: those of the registered category the notification names; one the app did not register shows none.
        content.actions = NotificationCategory.buttons(for: content.category, in: categories)
        // In the background iOS shows a banner and keeps it in the list; in the foreground, what willPresent returned:
        // the app's own delegate's answer when it runs one, else the options the device was given for the app.
        let willPresent = presented.map { Set(($0.presentation ?? []).compactMap(PresentationOption.init(rawValue:))) }
            ?? foreground[delivery.bundleID]
        if let options = willPresent, options.isDisjoint(with: [.banner, .list]) {
            return [.init(id: delivery.id, outcome: .suppressed, content: content,
                          detail: "the app is in the foreground and " + (presented.map { $0.diagnostic + ", so nothing is shown" }
                                                                          ?? "its willPresent handler returned no banner or list option"))]
        }
        let options = willPresent ?? Self.inTheBackground
        let interruption = Interruption.decide(level: content.interruptionLevel, bundleID: delivery.bundleID,
                                               entitlements: app?.entitlements ?? [], focus: focus)
        var presentation = Presentation(bundleID: delivery.bundleID, thread: content.threadID.flatMap { $0.isEmpty ? nil : $0 },
                                        banner: options.contains(.banner) && interruption.banner, list: options.contains(.list))
        var waits: String?
        var summaryDue: Date?
        if let summary, summary.includes(delivery.bundleID),
           !Interruption.breaksThrough(level: content.interruptionLevel, entitlements: app?.entitlements ?? []), let due = summary.next(after: now) {
            (presentation.banner, presentation.list) = (false, false)
            presentation.summary = due.formatted(.iso8601)
            summaryDue = due
            waits = "waiting for the Scheduled Summary at \(presentation.summary ?? "")"
                + (interruption.quietly.map { " (\($0))" } ?? "")
        }
        var receipts: [DeviceLinkMessage.Receipt] = []
        var again = false
        let identifier = delivery.collapseID ?? delivery.apnsID
        let key = Prehashed(ShownIdentifier(bundleID: delivery.bundleID, identifier: identifier))
        if !shownIdentifiers.insert(key).inserted,
           let index = shown.lastIndex(where: { $0.bundleID == delivery.bundleID && $0.identifier == identifier }) {
            let old = shown.remove(at: index)
            shownPerApp[old.bundleID, default: 1] -= 1
            if old.deliveryID == delivery.id {
                // The same delivery shown a second time: the gateway sent it again after the memo of receipts let it go.
                again = true
            } else {
                receipts.append(.init(id: old.deliveryID, outcome: .replaced, content: old.content,
                                      detail: "replaced by a newer notification with apns-collapse-id \(identifier)",
                                      presentation: old.presentation))
            }
        }
        shown.append(Displayed(deliveryID: delivery.id, apnsID: delivery.apnsID, identifier: identifier, bundleID: delivery.bundleID, content: content,
                               presentation: presentation, arrived: now, summaryDue: summaryDue))
        shownPerApp[delivery.bundleID, default: 0] += 1
        forgetOldest(of: delivery.bundleID)
        var detail = switch (presented.map { "the app is in the foreground and " + $0.diagnostic }, waits ?? interruption.quietly) {
        case (let foreground?, let held?): foreground + "; " + held
        case (let one?, nil), (nil, let one?): one
        case (nil, nil): String?.none
        }
        if again { detail = [Self.shownAgain, detail].compactMap { $0 }.joined(separator: "; ") }
        receipts.insert(.init(id: delivery.id, outcome: .displayed, content: content, detail: detail, presentation: presentation), at: 0)
        return receipts
    }
}

extension NotificationList {
    /// What a displayed receipt's detail starts with when the device showed the same delivery before (docs/cluster.md:
    /// a replica gone before a device's receipt reached it, and the memo of receipts past it). It should never be seen.
    public static let shownAgain = "shown again: this device showed this delivery before"

    /// Takes the notification at `index` of ``shown`` off the list (the user tapped, answered or dismissed it).
    mutating func remove(at index: Int) -> Displayed {
        let old = shown.remove(at: index)
        shownIdentifiers.remove(Prehashed(ShownIdentifier(bundleID: old.bundleID, identifier: old.identifier)))
        shownPerApp[old.bundleID, default: 1] -= 1
        return old
    }

    /// Past ``displayedLimit`` and a quarter, the app's oldest notifications leave the list down to the limit: a
    /// quarter of it at a time, so that keeping the list short costs nothing per push.
    private mutating func forgetOldest(of bundleID: String) {
        guard let count = shownPerApp[bundleID], count > displayedLimit + displayedLimit / 4 else { return }
        var leaving = count - displayedLimit
        // The ones that stay are moved up in order and the ones leaving go from the end, through the array's buffer:
        // `removeAll(where:)`, and the array's own subscript here, copied every notification to ask about it, a retain
        // and release of each of its strings (`perf record` of the devices, a plain load: 8% of their time,
        // docs/speed.md).
        var gone: [String] = []
        let kept = shown.withUnsafeMutableBufferPointer { buffer in
            var kept = 0
            for index in buffer.indices {
                if leaving > 0 && buffer[index].bundleID == bundleID {
                    leaving -= 1
                    gone.append(buffer[index].identifier)
                    continue
                }
                if kept != index { buffer.swapAt(kept, index) }
                kept += 1
            }
            return kept
        }
        shown.removeLast(shown.count - kept)
        for identifier in gone { shownIdentifiers.remove(Prehashed(ShownIdentifier(bundleID: bundleID, identifier: identifier))) }
        shownPerApp[bundleID] = displayedLimit
    }
}

/// What an app in the foreground lets iOS present (`UNNotificationPresentationOptions`).
public enum PresentationOption: String, Sendable, Hashable, Codable, CaseIterable {
    case banner, list, sound, badge
}
