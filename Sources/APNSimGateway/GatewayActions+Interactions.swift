import APNSimDeviceLink
import APNSimRules
import APNSimStore
import Foundation

/// The user's side of a notification, as the control API (`POST /v1/devices/{id}/tap`, `…/dismiss`) and ``Gateway``'s
/// own API (`tap`, `dismiss`) both do it: the device answers, and its interaction record is kept (docs/interactions.md).
extension GatewayActions {
    /// Why nothing was recorded, in a sentence.
    struct InteractionFailure: Error, CustomStringConvertible {
        enum Kind { case notConnected, refused, linkClosed, timedOut }
        var kind: Kind
        var description: String
    }

    /// How long a request waits for the device: a hang guard (a device answers at once, or once the app's own delegate
    /// has handled the response, within the extension budget, and the app has forwarded it, three attempts of 10 s).
    static let interactionWait: Duration = .seconds(120)

    func interact(device: String, apnsID: String, action: String, text: String?) async -> Result<InteractionRecord, InteractionFailure> {
        guard let link = devices.link(of: device) else {
            return .failure(.init(kind: .notConnected, description: "device \(device) is not connected"))
        }
        let interact = DeviceLinkMessage.Interact(id: UUID().uuidString, apnsID: apnsID, action: action, text: text, at: clock.now())
        switch await requests.ask(.interact(interact), awaiting: .reply(id: interact.id), on: link, timeout: Self.interactionWait) {
        case .answered(.interacted(let answer)):
            guard let record = answer.record else {
                return .failure(.init(kind: .refused, description: answer.refusal ?? "device \(device) changed nothing"))
            }
            do {
                // The app's token on the device: the one its alerts go to (a token stays the app's until it is reinstalled).
                try await store.record(record, token: devices.registration(of: device, bundleID: record.bundleID)?.token.hex)
                deliveries.changes.signal()  // wakes `GET /v1/interactions?wait=`
            } catch {
                return .failure(.init(kind: .refused, description: "the interaction could not be recorded: \(error)"))
            }
            return .success(record)
        case .answered(.installed), .answered(.refused), .answered(.summarized), .answered(.activities):
            preconditionFailure("an interact is answered by its interacted alone")
        case .sessionEnded:
            return .failure(.init(kind: .linkClosed, description: "device \(device) went offline before it answered; nothing was recorded"))
        case .timedOut:
            return .failure(.init(kind: .timedOut, description: "device \(device) did not answer within \(Self.interactionWait); nothing was recorded"))
        }
    }

    /// Turns a Focus on `device` on, or off (`nil`); a sentence naming the device when it is not connected.
    func setFocus(_ focus: Focus?, device: String) -> String? {
        devices.setFocus(focus, of: device) ? nil : "device \(device) is not connected"
    }
}
