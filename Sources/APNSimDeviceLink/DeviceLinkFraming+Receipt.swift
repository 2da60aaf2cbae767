import APNSimRules
import Foundation

/// A `receipt`, the answer to every push, written by hand (``JSONWriter``) as `Codable` would write it. A device answers a
/// broadcast to a thousand of its Live Activities with a thousand of them: `JSONEncoder` wrote each in about 24 µs,
/// three times what applying the push took (`Benchmarks/broadcast.sh`). Its content, presentation and extension run
/// are written by hand too (DeviceLinkFraming+ReceiptParts.swift).
extension DeviceLinkFraming {
    /// A `receipt` message; with `device`, an element of a `receipts` instead (no `type`, the device it is from).
    /// `address`: the device it is from on a shared link, its first member (``frame(_:deviceID:)``).
    static func written(_ receipt: DeviceLinkMessage.Receipt, device: String? = nil, address: String? = nil) -> [UInt8] {
        var json = JSONWriter(capacity: 512)
        json.field("deviceID", address)
        if let device { json.field("device", device) } else { json.field("type", "receipt") }
        json.field("id", receipt.id)
        json.field("outcome", receipt.outcome.rawValue)
        json.field("content", object: receipt.content.map(written))
        json.field("detail", receipt.detail)
        json.field("extension", object: receipt.extensionRun.map(writtenOnce))
        json.field("badge", object: receipt.badge.map(written))
        json.field("presentation", object: receipt.presentation.map(written))
        json.field("activity", object: receipt.activity.map(written))
        json.field("activityChange", object: receipt.activityChange.map(written))
        json.field("activityBudget", object: receipt.activityBudget.map(written))
        json.field("activityProgress", object: receipt.activityProgress.map(written))
        json.field("widgetReload", object: receipt.widgetReload.map(written))
        return json.finish()
    }

    private static func written(_ reload: WidgetReload) -> [UInt8] {
        var json = JSONWriter(capacity: 160)
        json.field("kinds", strings: reload.kinds)
        json.field("result", reload.result.rawValue)
        json.field("reason", reload.reason)
        json.field("dailyReloads", reload.dailyReloads)
        json.field("spentToday", reload.spentToday)
        return json.finish()
    }

    private static func written(_ badge: DeviceLinkMessage.AppBadge) -> [UInt8] {
        var json = JSONWriter(capacity: 64)
        json.field("bundleID", badge.bundleID)
        json.field("count", badge.count)
        return json.finish()
    }

    static func written(_ activity: LiveActivity) -> [UInt8] {
        var json = JSONWriter(capacity: 384)
        json.field("bundleID", activity.bundleID)
        json.field("attributesType", activity.attributesType)
        json.field("attributes", activity.attributes)
        json.field("pushToken", activity.pushToken?.hex)
        json.field("channelID", activity.channelID)
        json.field("startedAt", date: activity.startedAt)
        write(activity.progress, to: &json)
        return json.finish()
    }

    private static func written(_ progress: LiveActivity.Progress) -> [UInt8] {
        var json = JSONWriter(capacity: 160)
        write(progress, to: &json)
        return json.finish()
    }

    /// What a push can change of an activity, and its ID: in a whole activity, and alone in a carried push's receipt.
    private static func write(_ progress: LiveActivity.Progress, to json: inout JSONWriter) {
        json.field("id", progress.id)
        json.field("contentState", progress.contentState)
        json.field("timestamp", date: progress.timestamp)
        json.field("staleDate", date: progress.staleDate)
        json.field("relevanceScore", progress.relevanceScore)
        json.field("endedAt", date: progress.endedAt)
        json.field("dismissalDate", date: progress.dismissalDate)
    }

    private static func written(_ change: ActivityChange) -> [UInt8] {
        var json = JSONWriter(capacity: 256)
        json.field("id", change.id)
        json.field("event", change.event?.rawValue)
        json.field("result", change.result.rawValue)
        json.field("reason", change.reason)
        json.field("before", change.before)
        json.field("after", change.after)
        json.field("channel", change.channel)
        return json.finish()
    }

    private static func written(_ report: ActivityBudget.Report) -> [UInt8] {
        var json = JSONWriter(capacity: 96)
        json.field("bundleID", report.bundleID)
        json.field("perHour", report.perHour)
        json.field("spent", dates: report.spent)
        return json.finish()
    }
}
