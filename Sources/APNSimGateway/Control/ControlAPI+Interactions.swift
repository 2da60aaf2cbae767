import APNSimRules
import APNSimStore
import Foundation
import Hummingbird

/// The user's side of a notification: `POST /v1/devices/{id}/tap` (the notification, or one of its buttons, with
/// text for a text-input action) and `POST /v1/devices/{id}/dismiss` answer with the interaction record the device
/// made, which `GET /v1/interactions` lists (docs/interactions.md).
extension ControlAPI {
    func addInteractionRoutes(to v1: RouterGroup<BasicRequestContext>) {
        v1.post("devices/:id/tap") { request, context in
            try await self.interact(request, device: context.parameters.get("id") ?? "", dismiss: false)
        }
        v1.post("devices/:id/dismiss") { request, context in
            try await self.interact(request, device: context.parameters.get("id") ?? "", dismiss: true)
        }
        v1.get("interactions") { request, _ in
            let query: (filter: InteractionFilter, wait: Duration, count: Int)
            do throws(ControlAPIError) {
                query = try ControlQuery.interactionFilter(request.queryValues)
            } catch {
                return ControlJSON.error(error.description)
            }
            return try ControlJSON.response(try await self.interactions(matching: query.filter, count: query.count,
                                                                        until: .now + query.wait))
        }
    }

    /// The interactions `filter` matches once there are `count` of them, or what there is at `deadline`
    /// (`GET /v1/interactions?wait=&count=`, as deliveries wait): woken by each interaction recorded.
    private func interactions(matching filter: InteractionFilter, count: Int, until deadline: ContinuousClock.Instant) async throws
        -> [InteractionRecord] {
        try await deliveries.changes.poll(count: count, until: deadline) { try await store.interactions(matching: filter) }
    }

    /// `{"apnsId", "action", "text"}` of a tap, `{"apnsId"}` of a dismiss.
    private struct InteractionRequest: Decodable {
        var apnsID: String
        var action: String?
        var text: String?

        enum CodingKeys: String, CodingKey {
            case apnsID = "apnsId", action, text
        }
    }

    private func interact(_ request: Request, device: String, dismiss: Bool) async throws -> Response {
        let body: InteractionRequest
        do {
            body = try await ControlJSON.decode(InteractionRequest.self, from: request)
        } catch let error as ControlAPIError {
            return ControlJSON.error(error.description + (dismiss ? #"; give {"apnsId"}"# : #"; give {"apnsId", "action", "text"}"#))
        }
        if dismiss, body.action != nil || body.text != nil {
            return ControlJSON.error("a dismiss takes only apnsId; a button's action and text go to POST /v1/devices/\(device)/tap")
        }
        let action = dismiss ? InteractionRecord.dismissAction : body.action ?? InteractionRecord.defaultAction
        switch await actions.interact(device: device, apnsID: body.apnsID, action: action, text: body.text) {
        case .success(let record):
            return try ControlJSON.response(record)
        case .failure(let failure):
            let status: HTTPResponse.Status = switch failure.kind {
            case .notConnected, .linkClosed: .conflict
            case .refused: .unprocessableContent
            case .timedOut: .gatewayTimeout
            }
            return ControlJSON.error(failure.description, status: status)
        }
    }
}
