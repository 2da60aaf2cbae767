import APNSimDeviceLink
import APNSimRules
import Foundation

/// Live Activities on the device (Apple, "Starting and updating Live Activities with ActivityKit push notifications",
/// https://developer.apple.com/documentation/activitykit/starting-and-updating-live-activities-with-activitykit-push-notifications):
/// started by an app or by a push to its push-to-start token, updated and ended by pushes to their own tokens under
/// ``LiveActivity``'s rules, the app's declared types and its budget.
extension NotificationList {
    /// Each app's push-to-start tokens by attributes type.
    public var pushToStartTokensByApp: [String: [String: DeviceToken]] {
        pushToStart.reduce(into: [:]) { apps, entry in apps[entry.value.bundleID, default: [:]][entry.value.type] = entry.key }
    }

    /// An app ends one of its activities (``LiveActivity/endByApp(contentState:dismissal:at:)``).
    public mutating func end(_ end: DeviceLinkMessage.EndActivity) {
        _ = liveActivities[end.id]?.endByApp(contentState: end.contentState, dismissal: end.dismissalDate, at: end.at)
    }

    /// The push-to-start tokens the gateway issued `bundleID` (they replace its earlier ones).
    public mutating func setPushToStartTokens(_ tokens: [String: DeviceToken], for bundleID: String) {
        pushToStart = pushToStart.filter { $0.value.bundleID != bundleID }
        for (type, token) in tokens { pushToStart[token] = (bundleID, type) }
    }

    /// An app starts a Live Activity (`Activity.request`); it runs until a push or the app ends it. One the device has
    /// (a push started it) takes the push token the gateway gave it and stays as it is otherwise.
    public mutating func start(_ activity: LiveActivity) {
        guard liveActivities[activity.id] != nil else {
            liveActivities[activity.id] = activity
            return
        }
        liveActivities[activity.id]?.pushToken = activity.pushToken
    }

    /// `bundleID`'s activities in the order the device shows them, dismissed ones in their places.
    private func activitySequence(of bundleID: String) -> [LiveActivity] {
        LiveActivity.displaySequence(liveActivities.values.filter { $0.bundleID == bundleID })
    }

    /// `bundleID`'s activity IDs in the order the device shows them, before a push that may change it
    /// (``activityReport(for:ifReorderedFrom:)``); `nil` when the app has fewer than `least` activities, so the push
    /// cannot reorder them (a broadcast, which starts none, needs two; a push that may start one, one), without sorting
    /// anything for the usual device with a single activity.
    func activityOrder(of bundleID: String, ifAtLeast least: Int) -> [String]? {
        var count = 0
        for activity in liveActivities.values where activity.bundleID == bundleID {
            count += 1
            if count >= least { return activitySequence(of: bundleID).map(\.id) }
        }
        return nil
    }

    /// `bundleID`'s activities as the device reports them to the gateway, in the order it shows them.
    public func activityReport(for bundleID: String) -> DeviceLinkMessage.ActivityReport {
        .init(bundleID: bundleID, activities: activitySequence(of: bundleID))
    }

    /// After a push to `bundleID`'s activities, whose order was `before`: a report when their order is not what the
    /// gateway now takes it to be (`before`, then the activities the push started), and whether it goes before the
    /// push's receipt. It does, so the record never shows the push applied with the order from before it; it goes after
    /// when the push started an activity, since that receipt is how the gateway learns of the activity.
    func activityReport(for bundleID: String, ifReorderedFrom before: [String]) -> (DeviceLinkMessage.ActivityReport, beforeReceipt: Bool)? {
        let after = activitySequence(of: bundleID)
        let started = after.map(\.id).filter { !before.contains($0) }
        guard after.map(\.id) != before + started else { return nil }
        return (.init(bundleID: bundleID, activities: after), started.isEmpty)
    }

    /// A `liveactivity` push to an app's push-to-start token or to an activity's own token, with its receipt; `nil` for
    /// a push to the app's device token (the app-wide path).
    mutating func activityReceipt(_ delivery: DeviceLinkMessage.Delivery, payload: PushPayload, now: Date,
                         app: AppManifest?) -> DeviceLinkMessage.Receipt? {
        if let channel = delivery.channel, let id = delivery.activity {
            // A broadcast, for one activity subscribed to the channel: the gateway names it.
            guard let index = liveActivities.index(forKey: id), liveActivities.values[index].channelID == channel else {
                return .init(id: delivery.id, outcome: .dropped, content: nil,
                             detail: "a broadcast on channel \(channel) for Live Activity \(id), which this device does not have subscribed",
                             activityChange: ActivityChange(id: id, event: nil, result: .refused,
                                                            reason: "no Live Activity \(id) subscribed to channel \(channel) here", channel: channel))
            }
            return activityPush(delivery, to: index, payload: payload, now: now, app: app)
        }
        if let target = pushToStart[delivery.token] {
            return startByPush(delivery, target: target, payload: payload, now: now, app: app)
        }
        guard let index = liveActivities.firstIndex(where: { $0.value.pushToken == delivery.token }) else { return nil }
        return activityPush(delivery, to: index, payload: payload, now: now, app: app)
    }

    /// A push-to-start push (iOS 17.2): `event: start` to the app's push-to-start token for an attributes type starts a
    /// new activity of that type, which gets its own push token from the gateway once the receipt is in. Anything else
    /// starts nothing, and the receipt says why.
    private mutating func startByPush(_ delivery: DeviceLinkMessage.Delivery, target: (bundleID: String, type: String),
                                      payload: PushPayload, now: Date, app: AppManifest?) -> DeviceLinkMessage.Receipt {
        var event: ActivityPush.Event?
        do {
            let push = try payload.activityPush?.get() ?? ActivityPush(aps: payload.aps)
            event = push.event
            guard push.event == .start else {
                throw ActivityPushError("a push-to-start token takes only event start; this push's event is \(push.event.rawValue)")
            }
            guard push.attributesType == target.type else {
                throw ActivityPushError("aps.attributes-type is \(push.attributesType ?? ""), but this push-to-start token is \(target.type)'s")
            }
            let attributes = push.attributes ?? [:], state = push.contentState ?? [:]
            if let type = app?.activityType(target.type), let problem = type.attributesProblem(attributes) ?? type.contentStateProblem(state) {
                throw ActivityPushError(problem)
            }
            // `input-push-channel` subscribes it to a broadcast channel instead of giving it a token (iOS 18).
            let activity = LiveActivity(id: UUID().uuidString, bundleID: target.bundleID, attributesType: target.type, attributes: attributes,
                                        contentState: state, startedAt: now, timestamp: push.timestamp, staleDate: push.staleDate,
                                        relevanceScore: push.relevanceScore, channelID: push.inputPushChannel)
            liveActivities[activity.id] = activity
            // The start's alert lights the screen (ActivityKit requires one): the record keeps it as an alert's content.
            return .init(id: delivery.id, outcome: .liveactivity, content: payload.content,
                         detail: "Live Activity \(activity.id) started by push (\(target.type))", activity: activity,
                         activityChange: ActivityChange(id: activity.id, event: .start, result: .started, after: state))
        } catch {
            return .init(id: delivery.id, outcome: .dropped, content: nil, detail: "no Live Activity started: \(error)",
                         activityChange: ActivityChange(id: nil, event: event, result: .refused, reason: "\(error)"))
        }
    }

    /// A `liveactivity` push to an activity's token: applied by ActivityKit's rules (``LiveActivity/apply(_:now:)``),
    /// or refused with the reason (a payload ActivityKit cannot read, a content state the app's type would not decode,
    /// a priority-10 update past the app's budget); either way the activity is kept and the receipt carries it.
    /// `index`: where the activity is in ``liveActivities``, found once (a broadcast's thousand pushes looked each up twice).
    private mutating func activityPush(_ delivery: DeviceLinkMessage.Delivery, to index: [String: LiveActivity].Index, payload: PushPayload,
                                       now: Date, app: AppManifest?) -> DeviceLinkMessage.Receipt {
        var activity = liveActivities.values[index]
        _ = activity.age(now: now)
        let before = activity.contentState
        var change = ActivityChange(id: activity.id, event: nil, result: .refused, before: before, channel: delivery.channel)
        let detail: String
        do {
            let push = try payload.activityPush?.get() ?? ActivityPush(aps: payload.aps)
            change.event = push.event
            if delivery.channel != nil, push.event == .start {
                throw ActivityPushError("a broadcast cannot start a Live Activity; its event must be update or end")
            }
            if let state = push.contentState, let problem = app?.activityType(activity.attributesType)?.contentStateProblem(state) {
                throw ActivityPushError(problem)
            }
            if let budget = activityBudget, delivery.priority == 10, !activity.isEnded,
               !activitySpending[delivery.bundleID, default: .init()].spend(of: budget, frequent: app?.supportsFrequentUpdates == true, at: now) {
                let limit = app?.supportsFrequentUpdates == true ? budget.frequentPerHour : budget.perHour
                change.result = .throttled
                change.reason = "\(delivery.bundleID) has had its \(limit) priority-10 updates this hour (send priority 5, or set "
                    + "NSSupportsLiveActivitiesFrequentUpdates)"
                detail = "Live Activity \(activity.id) throttled the \(push.event.rawValue): \(change.reason!)"
            } else {
                switch activity.apply(push, now: now) {
                case .updated:
                    change.result = .applied
                    detail = "Live Activity \(activity.id) \(push.event.rawValue): applied"
                case .ended:
                    change.result = .ended
                    detail = "Live Activity \(activity.id) ended"
                case .ignored(let why):
                    (change.result, change.reason) = (.ignored, why)
                    detail = "Live Activity \(activity.id) ignored the \(push.event.rawValue): \(why)"
                }
            }
        } catch {
            change.reason = "\(error)"
            detail = "Live Activity \(activity.id) refused the push: \(error)"
        }
        change.after = activity.contentState
        liveActivities.values[index] = activity
        // An update or end with an alert lights the screen and plays its sound: the record keeps the alert as content.
        let alert = payload.aps["alert"] != nil && (change.result == .applied || change.result == .ended) ? payload.content : nil
        var receipt = DeviceLinkMessage.Receipt(id: delivery.id, outcome: .liveactivity, content: alert, detail: detail, activity: activity,
                                                activityChange: change)
        if let budget = activityBudget {
            let frequent = app?.supportsFrequentUpdates == true
            receipt.activityBudget = ActivityBudget.Report(bundleID: delivery.bundleID, perHour: frequent ? budget.frequentPerHour : budget.perHour,
                                                           spent: activitySpending[delivery.bundleID]?.times ?? [])
        }
        return receipt
    }
}
