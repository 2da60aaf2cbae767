import APNSimRules
import APNSimGateway
import APNSimStore
import Foundation
import Hummingbird

/// `GET /v1/compose` (what the composer can offer) and `POST /v1/compose` (send a push to a device's app through the
/// provider API), for the inbox's composer (docs/inbox.md).
extension Inbox {
    struct ComposeRequest: Decodable {
        var device: String
        var bundleID: String
        /// The payload as JSON text; sent exactly as written, so a broken one gets the provider API's answer.
        var payload: String
        /// `alert` unless given.
        var pushType: String?
        /// The app's bundle ID plus the push type's suffix unless given.
        var topic: String?
        var priority: Int?
        var collapseID: String?
        /// `apns-expiration`, seconds since 1970.
        var expiration: Int?
    }

    struct ComposeAnswer: Encodable {
        var status: Int
        var apnsID: String?
        var reason: String?
        /// Why, in words, from the gateway's send record.
        var explanation: String?
        var token: String
        var topic: String
        var send: SendRecord?

        enum CodingKeys: String, CodingKey {
            case status, apnsID = "apnsId", reason, explanation, token, topic, send
        }
    }

    func addComposeRoutes(to v1: RouterGroup<BasicRequestContext>, gateway: GatewayAccess) {
        v1.get("compose") { _, _ in
            struct Offer: Encodable {
                var available: Bool
                var why: String?
                var media: InboxComposer.Media?
                /// Every `apns-push-type` the gateway knows.
                var pushTypes = PushType.all.map(\.rawValue)
            }
            guard let composer else {
                return try ControlJSON.response(Offer(available: false, why: Self.composerOff))
            }
            return try ControlJSON.response(Offer(available: true, media: composer.media()))
        }
        v1.post("compose") { request, _ in try await self.compose(request, gateway: gateway) }
    }

    static let composerOff = "the composer needs a provider key to sign with; apnsim up gives it the sandbox's"

    private func compose(_ request: Request, gateway: GatewayAccess) async throws -> Response {
        guard let composer else { return ControlJSON.error(Self.composerOff, status: .serviceUnavailable) }
        let body: ComposeRequest
        do {
            body = try await ControlJSON.decode(ComposeRequest.self, from: request)
        } catch let error as ControlAPIError {
            return ControlJSON.error(error.description)
        }
        guard gateway.hasDevice(body.device) else {
            return ControlJSON.error("there is no device \(body.device)", status: .notFound)
        }
        guard let registration = gateway.registration(device: body.device, bundleID: body.bundleID) else {
            return ControlJSON.error("device \(body.device) has no registered \(body.bundleID)", status: .notFound)
        }
        let pushTypeName = body.pushType ?? "alert"
        guard let pushType = PushType(headerValue: pushTypeName) else {
            return ControlJSON.error("pushType \(pushTypeName) is not one of \(PushType.all.map(\.rawValue).joined(separator: ", "))")
        }
        guard let port = gateway.providerPorts[registration.environment] else {
            return ControlJSON.error("the gateway has no \(registration.environment.rawValue) endpoint for \(body.bundleID)'s token",
                                     status: .conflict)
        }
        let topic = body.topic ?? body.bundleID + pushType.topicSuffix
        var headers = [(name: "apns-topic", value: topic), (name: "apns-push-type", value: pushType.rawValue)]
        if let priority = body.priority { headers.append(("apns-priority", String(priority))) }
        if let collapseID = body.collapseID, !collapseID.isEmpty { headers.append(("apns-collapse-id", collapseID)) }
        if let expiration = body.expiration { headers.append(("apns-expiration", String(expiration))) }
        let token = registration.token.hex
        let team = gateway.team(of: body.bundleID)
        let answer: InboxComposer.Answer
        do {
            answer = try await composer.send(.init(environment: registration.environment, port: port, token: token, team: team,
                                                   headers: headers, payload: body.payload))
        } catch {
            return ControlJSON.error("the composer could not send through the provider API on port \(port): \(error)", status: .badGateway)
        }
        var send: SendRecord?
        if let apnsID = answer.apnsID { send = try await gateway.send(apnsID: apnsID) }
        return try ControlJSON.response(ComposeAnswer(status: answer.status, apnsID: answer.apnsID, reason: answer.reason,
                                                      explanation: send?.explanation, token: token, topic: topic, send: send))
    }
}
