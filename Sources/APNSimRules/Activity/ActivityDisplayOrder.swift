import Foundation

extension LiveActivity {
    /// The order iOS shows an app's visible activities in on one device (Apple, `ActivityContent.relevanceScore`,
    /// https://developer.apple.com/documentation/activitykit/activitycontent/relevancescore): the highest
    /// `relevance-score` first, and that one in the Dynamic Island; of equal scores, the one that started first. An
    /// activity with no score has 0, `ActivityContent`'s default. Dismissed activities are not shown.
    ///
    /// Apple documents the order among one app's activities only; how iOS interleaves several apps' is its own, so
    /// apnsim ranks each app's activities apart.
    public static func displayOrder(_ activities: [LiveActivity], at now: Date) -> [LiveActivity] {
        displaySequence(activities).filter { $0.isVisible(at: now) }
    }

    /// ``displayOrder(_:at:)`` with the dismissed ones in their places: what a device reports
    /// (`DeviceLinkMessage.ActivityReport`), so whoever shows it later leaves out those dismissed by then.
    public static func displaySequence(_ activities: [LiveActivity]) -> [LiveActivity] {
        activities.sorted { left, right in
            let (a, b) = (left.relevanceScore ?? 0, right.relevanceScore ?? 0)
            if a != b { return a > b }
            return (left.startedAt, left.id) < (right.startedAt, right.id)
        }
    }
}
