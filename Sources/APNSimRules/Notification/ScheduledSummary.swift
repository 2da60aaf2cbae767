import Foundation

/// The user's Scheduled Summary: the times of day it is delivered and the apps whose notifications wait for it
/// (Apple, "Managing notifications with Focus",
/// https://developer.apple.com/documentation/usernotifications/managing-notifications-with-focus, and the iPhone User
/// Guide's "Schedule a notification summary", https://support.apple.com/guide/iphone/iph7c3d6f9f3/ios: notifications
/// of the apps chosen are delivered together at the times chosen, ordered by relevance, and Time Sensitive ones
/// are delivered at once).
///
/// apnsim's choices where Apple is silent (README, "Assumptions"): a notification a Focus holds waits for the summary
/// when its app is in the summary, and goes quietly to the list otherwise; a summary with no `apps` takes every app;
/// times are in `timeZone` (UTC when absent); iOS allows up to 12 times a day.
public struct ScheduledSummary: Sendable, Hashable, Codable {
    /// Times of day, `HH:mm` (24-hour), in ``timeZone``.
    public var times: [String]
    /// The apps in the summary, by bundle ID; absent or empty: every app.
    public var apps: [String]?
    /// An IANA time zone name (`Europe/Paris`); UTC when absent.
    public var timeZone: String?

    public init(times: [String], apps: [String]? = nil, timeZone: String? = nil) {
        self.times = times
        self.apps = apps
        self.timeZone = timeZone
    }

    /// What makes it one iOS would not set, as sentences naming the value; empty when it is sound.
    public var problems: [String] {
        var found: [String] = []
        if times.isEmpty { found.append("a Scheduled Summary needs at least one time (HH:mm)") }
        if times.count > 12 { found.append("a Scheduled Summary has at most 12 times a day; \(times.count) were given") }
        for time in times where Self.minutes(of: time) == nil {
            found.append("summary time \(time) is not a time of day as HH:mm (08:00, 18:30)")
        }
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            found.append("time zone \(timeZone) is not an IANA time zone name (Europe/Paris, America/New_York, UTC)")
        }
        return found
    }

    /// Whether `bundleID`'s notifications wait for the summary.
    public func includes(_ bundleID: String) -> Bool {
        guard let apps, !apps.isEmpty else { return true }
        return apps.contains(bundleID)
    }

    /// The first time the summary is delivered after `date`; `nil` when it has no valid time.
    public func next(after date: Date) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
        let dayStart = calendar.startOfDay(for: date)
        let minutes = times.compactMap(Self.minutes(of:)).sorted()
        for dayOffset in 0...2 {  // with a time in each day, one of today's or tomorrow's comes after `date`
            guard let day = calendar.date(byAdding: .day, value: dayOffset, to: dayStart) else { continue }
            for minute in minutes {
                if let time = calendar.date(bySettingHour: minute / 60, minute: minute % 60, second: 0, of: day), time > date {
                    return time
                }
            }
        }
        return nil
    }

    /// Minutes after midnight of `HH:mm`; `nil` when it is not one.
    static func minutes(of time: String) -> Int? {
        let parts = time.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
              (0..<24).contains(hour), (0..<60).contains(minute) else { return nil }
        return hour * 60 + minute
    }
}

/// A Scheduled Summary as the device delivered it (`GET /v1/summaries`): the notifications that waited for it, in the
/// order iOS shows them, highest `relevance-score` first (Apple, "relevanceScore",
/// https://developer.apple.com/documentation/usernotifications/unnotificationcontent/relevancescore: the system
/// uses the score to sort the app's notifications in the summary and features the highest).
public struct SummaryDelivery: Sendable, Hashable, Codable {
    public var id: String
    public var device: String
    /// The summary time it was due at; absent when it was delivered on request (`POST /v1/devices/{id}/summary/deliver`).
    public var scheduledFor: Date?
    public var at: Date
    public var notifications: [Item]
    /// What happened, in a sentence.
    public var detail: String

    /// One notification of the summary.
    public struct Item: Sendable, Hashable, Codable {
        public var apnsID: String
        public var deliveryID: String
        public var bundleID: String
        public var title: String?
        public var body: String?
        /// Its `relevance-score`: 0 when the push gave none.
        public var relevanceScore: Double
        /// When it arrived and began to wait.
        public var arrived: Date

        /// Swift names by Swift's conventions; the JSON ones as every record spells them.
        enum CodingKeys: String, CodingKey {
            case apnsID = "apnsId", deliveryID = "deliveryId", bundleID, title, body, relevanceScore, arrived
        }

        public init(apnsID: String, deliveryID: String, bundleID: String, title: String?, body: String?, relevanceScore: Double, arrived: Date) {
            self.apnsID = apnsID
            self.deliveryID = deliveryID
            self.bundleID = bundleID
            self.title = title
            self.body = body
            self.relevanceScore = relevanceScore
            self.arrived = arrived
        }
    }

    public init(id: String, device: String, scheduledFor: Date?, at: Date, notifications: [Item], detail: String) {
        self.id = id
        self.device = device
        self.scheduledFor = scheduledFor
        self.at = at
        self.notifications = notifications
        self.detail = detail
    }
}
