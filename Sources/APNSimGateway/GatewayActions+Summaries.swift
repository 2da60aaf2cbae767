import APNSimDeviceLink
import APNSimRules
import APNSimStore
import Foundation

/// The user's Scheduled Summary, as the control API (`POST /v1/devices/{id}/summary`, `…/summary/deliver`) and
/// ``Gateway``'s own API do it: the device keeps the schedule and delivers the summary, at its times or on request,
/// and each summary it delivers is recorded (docs/interactions.md, "Scheduled Summary").
extension GatewayActions {
    /// A summary a device delivered: recorded, then handed to the request that asked for it, if one did.
    func summarized(_ summary: SummaryDelivery) {
        Task {
            var summary = summary
            do {
                try await store.record(summary)
            } catch {
                summary.detail += "; it could not be recorded: \(error)"  // the request that asked for it still gets it
            }
            devices.revisions.bump()  // what the device shows changed: the inbox reads the summary
            requests.resolve(.reply(id: summary.id), with: .summarized(summary))
        }
    }

    /// Sets `device`'s Scheduled Summary, or turns it off (`nil`); a sentence naming the device when it is not connected.
    func setSummary(_ summary: ScheduledSummary?, device: String) -> String? {
        devices.setSummary(summary, of: device) ? nil : "device \(device) is not connected"
    }

    /// Delivers `device`'s Scheduled Summary now, as if its time had come, and answers with what it delivered.
    func deliverSummary(device: String) async -> Result<SummaryDelivery, InteractionFailure> {
        guard let link = devices.link(of: device) else {
            return .failure(.init(kind: .notConnected, description: "device \(device) is not connected"))
        }
        let id = UUID().uuidString
        switch await requests.ask(.deliverSummary(.init(id: id)), awaiting: .reply(id: id), on: link, timeout: Self.interactionWait) {
        case .answered(.summarized(let summary)):
            return .success(summary)
        case .answered(.installed), .answered(.refused), .answered(.interacted), .answered(.activities):
            preconditionFailure("a deliverSummary is answered by its summarized alone")
        case .sessionEnded:
            return .failure(.init(kind: .linkClosed, description: "device \(device) went offline before it delivered its summary"))
        case .timedOut:
            return .failure(.init(kind: .timedOut, description: "device \(device) did not deliver its summary within \(Self.interactionWait)"))
        }
    }
}
