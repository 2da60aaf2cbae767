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
        activities.filter { $0.isVisible(at: now) }.sorted { left, right in
            let (a, b) = (left.relevanceScore ?? 0, right.relevanceScore ?? 0)
            if a != b { return a > b }
            return (left.startedAt, left.id) < (right.startedAt, right.id)
        }
    }

    /// Each visible activity's place in ``displayOrder(_:at:)`` among its app's on the same device, by activity ID:
    /// 1 is the one in the Dynamic Island and first on the Lock Screen.
    public static func displayRanks(_ activities: [(device: String, activity: LiveActivity)], at now: Date) -> [String: Int] {
        var ranks: [String: Int] = [:]
        let byApp = Dictionary(grouping: activities) { "\($0.device)\u{0}\($0.activity.bundleID)" }
        for group in byApp.values {
            for (index, activity) in displayOrder(group.map(\.activity), at: now).enumerated() { ranks[activity.id] = index + 1 }
        }
        return ranks
    }
}
