import APNSimCore
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
            let filter: InteractionFilter
            do throws(ControlAPIError) {
                filter = try ControlQuery.interactionFilter(request.queryValues)
            } catch {
                return ControlJSON.error(error.description)
            }
            return try ControlJSON.response(try self.store.interactions(matching: filter))
        }
    }

    /// `{"apnsId", "action", "text"}` of a tap, `{"apnsId"}` of a dismiss.
    private struct InteractionRequest: Decodable {
        var apnsId: String
        var action: String?
        var text: String?
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
        guard let link = devices.link(of: device) else {
            return ControlJSON.error("device \(device) is not connected", status: .conflict)
        }
        let action = dismiss ? InteractionRecord.dismissAction : body.action ?? InteractionRecord.defaultAction
        let interact = DeviceLinkMessage.Interact(id: UUID().uuidString, apnsID: body.apnsId, action: action, text: body.text,
                                                  at: clock.now())
        switch await interactions.interact(interact, on: link, timeout: .seconds(60)) {
        case .answered(let answer):
            guard let record = answer.record else {
                return ControlJSON.error(answer.refusal ?? "the device changed nothing", status: .unprocessableContent)
            }
            let token = try store.deliveries(matching: DeliveryFilter(apnsId: record.apnsId, limit: 1000))
                .first { $0.id == record.deliveryId }?.token
            try store.record(record, token: token)
            return try ControlJSON.response(record)
        case .linkClosed:
            return ControlJSON.error("device \(device) went offline before it answered; nothing was recorded", status: .conflict)
        case .timedOut:
            return ControlJSON.error("device \(device) did not answer within 60 s; nothing was recorded", status: .gatewayTimeout)
        }
    }
}
