import APNSimRules
import Foundation
import Synchronization

/// What nearly every receipt carries, a notification's content, its presentation and the extension's run, written by
/// hand (``JSONWriter``) as `Codable` writes it: the same keys (in the declaration's order, where `JSONEncoder` writes
/// its dictionary's), a `nil` left out where `encodeIfPresent` leaves it out. `JSONEncoder` wrote these three at about 100,000 instructions a receipt, half of what a device spent on a
/// push (`Benchmarks/instructions.sh`, the display path). What few receipts carry (an attachment's refusal, the
/// categories an extension set, a notification's buttons) is still written by `JSONEncoder`.
extension DeviceLinkFraming {
    static func written(_ content: NotificationContent) -> [UInt8] {
        var json = JSONWriter(capacity: 256)
        json.field("title", content.title)
        json.field("subtitle", content.subtitle)
        json.field("body", content.body)
        json.field("badge", content.badge)
        json.field("sound", content.sound)
        json.field("threadID", content.threadID)
        json.field("category", content.category)
        json.field("interruptionLevel", content.interruptionLevel)
        json.field("relevanceScore", content.relevanceScore)
        json.field("attachments", elements: content.attachments.map(written))
        json.field("userInfo", content.userInfo)
        json.field("actions", object: encodedParts(content.actions))
        return json.finish()
    }

    static func written(_ attachment: NotificationContent.Attachment) -> [UInt8] {
        var json = JSONWriter(capacity: 160)
        json.field("identifier", attachment.identifier)
        json.field("type", attachment.type)
        json.field("size", attachment.size)
        json.field("sha256", attachment.sha256)
        json.field("url", attachment.url)
        json.field("refusal", object: encodedParts(attachment.refusal))
        return json.finish()
    }

    /// The last run written that never launched, and its text. Such a run is the same for every push to an app whose
    /// extension a push does not start (no `mutable-content`, most pushes of a load test): compared, not written again,
    /// it costs a receipt 300 instructions instead of 8,300 (`Benchmarks/instructions.sh`, the display path). Runs that
    /// ran differ from push to push and are written each time.
    private static let unlaunched = Mutex<(run: ExtensionRun, json: [UInt8])?>(nil)

    /// `written(_:)` of `run`; the text of one that never launched is kept for the next one like it.
    static func writtenOnce(_ run: ExtensionRun) -> [UInt8] {
        guard run.outcome == .notLaunched else { return written(run) }
        if let kept = unlaunched.withLock({ $0 }), kept.run == run { return kept.json }
        let json = written(run)
        unlaunched.withLock { $0 = (run, json) }
        return json
    }

    /// As ``ExtensionRun``'s own `encode(to:)` writes it.
    static func written(_ run: ExtensionRun) -> [UInt8] {
        var json = JSONWriter(capacity: 256)
        json.field("ran", run.ran)
        json.field("kind", run.kind?.rawValue)
        json.field("pickedBy", run.pickedBy)
        json.field("launched", run.launched)
        json.field("suppressed", run.suppressed)
        json.field("outcome", run.outcome.rawValue)
        json.field("diagnostic", run.diagnostic)
        json.field("durationMs", run.durationMs)
        json.field("violations", strings: run.violations)
        if !run.log.isEmpty { json.field("log", strings: run.log) }
        if !run.refusedAttachments.isEmpty { json.field("refusedAttachments", elements: run.refusedAttachments.map(written)) }
        json.field("registeredCategories", object: encodedParts(run.registeredCategories))
        if let downloads = run.downloads { json.field("downloads", elements: downloads.map(written)) }
        return json.finish()
    }

    static func written(_ download: MediaDownload) -> [UInt8] {
        var json = JSONWriter(capacity: 128)
        json.field("url", download.url)
        json.field("status", download.status)
        json.field("bytes", download.bytes)
        json.field("durationMs", download.durationMs)
        json.field("error", download.error)
        return json.finish()
    }

    static func written(_ presentation: Presentation) -> [UInt8] {
        var json = JSONWriter(capacity: 96)
        json.field("bundleID", presentation.bundleID)
        json.field("threadID", presentation.thread)
        json.field("thread", presentation.thread)  // its old spelling, for one release (Presentation's Codable form)
        json.field("banner", presentation.banner)
        json.field("list", presentation.list)
        json.field("summary", presentation.summary)
        return json.finish()
    }

    /// What the hand-written parts leave to `JSONEncoder`.
    private static func encodedParts(_ value: (some Encodable)?) -> [UInt8]? {
        value.map { Array(try! JSONEncoder().encode($0)) }  // plain Codable data
    }
}
