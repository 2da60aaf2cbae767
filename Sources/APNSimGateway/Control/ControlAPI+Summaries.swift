import APNSimRules
import APNSimStore
import Foundation
import Hummingbird

/// The user's Scheduled Summary: `POST /v1/devices/{id}/summary {"times", "apps", "timeZone"}` sets it, `DELETE`
/// turns it off, `POST /v1/devices/{id}/summary/deliver` delivers it now and answers with what it delivered, and
/// `GET /v1/summaries?device=&limit=` lists the summaries devices delivered (docs/interactions.md).
extension ControlAPI {
    func addSummaryRoutes(to v1: RouterGroup<BasicRequestContext>) {
        v1.post("devices/:id/summary") { request, context in
            let summary: ScheduledSummary
            do {
                summary = try await ControlJSON.decode(ScheduledSummary.self, from: request)
            } catch let error as ControlAPIError {
                return ControlJSON.error(error.description + #"; give {"times": ["08:00", "18:00"], "apps", "timeZone"}"#)
            }
            if let problem = summary.problems.first { return ControlJSON.error(problem) }
            return try self.setSummary(summary, device: context.parameters.get("id") ?? "")
        }
        v1.delete("devices/:id/summary") { _, context in try self.setSummary(nil, device: context.parameters.get("id") ?? "") }
        v1.post("devices/:id/summary/deliver") { _, context in
            switch await self.actions.deliverSummary(device: context.parameters.get("id") ?? "") {
            case .success(let summary):
                return try ControlJSON.response(summary)
            case .failure(let failure):
                return ControlJSON.error(failure.description, status: failure.kind == .timedOut ? .gatewayTimeout : .conflict)
            }
        }
        v1.get("summaries") { request, _ in
            let filter: (device: String?, limit: Int)
            do throws(ControlAPIError) {
                filter = try ControlQuery.summaryFilter(request.queryValues)
            } catch {
                return ControlJSON.error(error.description)
            }
            return try ControlJSON.response(try await self.store.summaries(device: filter.device, limit: filter.limit))
        }
    }

    private func setSummary(_ summary: ScheduledSummary?, device: String) throws -> Response {
        if let problem = actions.setSummary(summary, device: device) { return ControlJSON.error(problem, status: .conflict) }
        return try ControlJSON.response(["status": "sent", "device": device, "message": "summary"])
    }
}
