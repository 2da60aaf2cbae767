import APNSimRules
import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2

/// The broadcast APIs of ``ProviderConnectionHandler`` (iOS 18): broadcasts on the provider ports and channel management
/// on the management ports, answered as Apple documents them ("Sending channel management requests to APNs", "Sending
/// broadcast push notification requests to APNs"): every answer carries `apns-request-id` (the provider's, or a new
/// one); errors are `{"reason":…}` as for device pushes.
extension ProviderConnectionHandler {
    /// What a broadcast API request is answered.
    struct BroadcastAnswer {
        var status: Int
        var headers: [(name: String, value: String)] = []
        var body: String?
        var rejection: Rejection?
        /// The ID the send record keeps: the broadcast's `apns-id`, which its deliveries carry; otherwise the request ID.
        var recordedID: String?

        init(_ rejection: Rejection) {
            status = rejection.reason.status
            body = rejection.responseBody
            self.rejection = rejection
        }

        init(status: Int, headers: [(name: String, value: String)] = [], body: String? = nil, recordedID: String? = nil) {
            self.status = status
            self.headers = headers
            self.body = body
            self.recordedID = recordedID
        }
    }

    /// A broadcast or channel request whose head passed: check its body, do it, answer.
    func decideBroadcastAPI(_ exchange: PushExchange, plan: RequestPlan, streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        let services = connection.services
        let body = exchange.body.readableBytesView
        let answer: BroadcastAnswer
        switch plan {
        case .push:
            preconditionFailure("device pushes are answered by answer(_:rejection:streamID:context:written:)")
        case .broadcast(let broadcast):
            if let rejection = services.validator.validateBroadcastBody(body) {
                answer = .init(rejection)
            } else {
                let apnsID = exchange.head["apns-id"] ?? connection.responseIDs.upperCaseUUID()
                services.directory.broadcast(broadcast, apnsID: apnsID, payload: exchange.bodyText, now: exchange.receivedAt)
                // As for device pushes: development only, lower case.
                let unique = connection.environment == .development ? [(name: "apns-unique-id", value: connection.responseIDs.lowerCaseUUID())] : []
                answer = .init(status: 200, headers: unique, recordedID: apnsID)
            }
        case .channel(let channel):
            answer = channelAnswer(channel, body: body, receivedAt: exchange.receivedAt)
        }
        answerBroadcastAPI(exchange, answer: answer, streamID: streamID, context: context)
    }

    private func channelAnswer(_ plan: ChannelPlan, body: some Collection<UInt8>, receivedAt: Date) -> BroadcastAnswer {
        let services = connection.services, environment = connection.environment
        switch plan.operation {
        case .create:
            switch services.validator.channelStoragePolicy(body) {
            case .failure(let rejection):
                return .init(rejection)
            case .success(let policy):
                switch services.directory.createChannel(bundleID: plan.bundleID, environment: environment, policy: policy, now: receivedAt) {
                case .failure(let rejection): return .init(rejection)
                case .success(let channel): return .init(status: 201, headers: [(name: "apns-channel-id", value: channel.id)])
                }
            }
        case .read(let channel):
            return .init(status: 200, body: #"{"message-storage-policy":\#(channel.storagePolicy.rawValue),"push-type":"LiveActivity"}"#)
        case .delete(let channel):
            services.directory.deleteChannel(channel.id)
            return .init(status: 204)
        case .list:
            let ids = services.world.read { $0.channels(of: plan.bundleID, environment: environment) }.map(\.id)
            var json = JSONWriter(capacity: 32 + ids.count * 28)
            json.field("channels", json: "[" + ids.map { #""\#($0)""# }.joined(separator: ",") + "]")
            return .init(status: 200, body: String(decoding: json.finish(), as: UTF8.self))
        }
    }

    /// Records the request and writes its answer; `written` completes when the last frame is written. A broadcast's 200
    /// waits for the store's commit of its deliveries, as a push's does (and on replicas, a channel's 201 and 204).
    func answerBroadcastAPI(_ exchange: PushExchange, answer: BroadcastAnswer, streamID: HTTP2StreamID, context: ChannelHandlerContext,
                            written: EventLoopPromise<Void>? = nil) {
        let requestID = exchange.head["apns-request-id"] ?? connection.responseIDs.lowerCaseUUID()
        record(exchange, apnsID: answer.recordedID ?? requestID, payload: exchange.bodyText, status: answer.status,
               reason: answer.rejection?.reason.rawValue, explanation: answer.rejection?.explanation,
               uniqueID: answer.headers.first { $0.name == "apns-unique-id" }?.value)
        var headers = HPACKHeaders()
        headers.add(name: ":status", value: String(answer.status))
        if answer.body != nil { headers.add(name: "content-type", value: "application/json") }
        headers.add(name: "apns-request-id", value: requestID, indexing: .nonIndexable)
        for header in answer.headers { headers.add(name: header.name, value: header.value, indexing: .nonIndexable) }
        guard let body = answer.body else {
            let frame = HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: true)))
            // On replicas, a channel created or deleted is answered once the store has it: the others know it then.
            let durable = (exchange.api == .broadcast && answer.status == 200)
                || (exchange.api == .channels && connection.services.replicas != nil && (answer.status == 201 || answer.status == 204))
            if durable, connection.services.commits != nil {
                awaitingCommit.append((frame, written))
                connection.state.answerAwaitsCommit()
            } else {
                write(frame, context: context, promise: written)
            }
            return
        }
        write(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers))), context: context)
        write(HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(context.channel.allocator.buffer(string: body)),
                                                                  endStream: true))),
              context: context, promise: written)
    }
}
