import APNSimRules
import Foundation

extension NotificationList {
    /// Delivers the notifications waiting for the Scheduled Summary: those due by `due` (every one waiting when
    /// `nil`: a summary delivered on request), highest `relevance-score` first and, among equal scores, oldest first
    /// (``SummaryDelivery``). Each is in the list from now on.
    public mutating func deliverSummary(due: Date?) -> [SummaryDelivery.Item] {
        var delivered: [SummaryDelivery.Item] = []
        for index in shown.indices {
            let waiting = shown[index]
            guard let at = waiting.summaryDue else { continue }
            if let due, at > due { continue }
            shown[index].presentation.list = true
            shown[index].summaryDue = nil
            delivered.append(.init(apnsID: waiting.apnsID, deliveryID: waiting.deliveryID, bundleID: waiting.bundleID,
                                   title: waiting.content.title, body: waiting.content.body,
                                   relevanceScore: waiting.content.relevanceScore ?? 0, arrived: waiting.arrived))
        }
        // A stable sort: `shown` is oldest first.
        return delivered.enumerated().sorted { ($1.element.relevanceScore, $0.offset) < ($0.element.relevanceScore, $1.offset) }.map(\.element)
    }

    /// How many notifications wait for the Scheduled Summary.
    public var waitingForSummary: Int {
        shown.count { $0.summaryDue != nil }
    }
}
