import APNSimRules
import Foundation
import NIOCore
import Tracing

/// What a request that passed the header checks is: a push (`/3/device/…`), a broadcast (`/4/broadcasts/apps/…`) or a
/// channel management request (`/1/apps/…`, on the management ports).
enum RequestPlan {
    case push(PushPlan)
    case broadcast(BroadcastPlan)
    case channel(ChannelPlan)

    /// The device token a push goes to (faults aimed at a token act on it); `nil` for the broadcast APIs.
    var token: DeviceToken? {
        if case .push(let plan) = self { plan.token } else { nil }
    }
}

/// One request on one HTTP/2 stream, from its HEADERS to its answer: the head, what validation of the head
/// decided, and as much of the body as the push type allows.
struct PushExchange {
    /// Which of Apple's APIs the request is for, from its listener and path: its answer's headers depend on it.
    enum API {
        case device
        case broadcast
        case channels
    }

    var head: PushRequestHead
    var api: API = .device
    var verdict: Result<RequestPlan, Rejection>
    /// The body up to ``limit``; bytes past it are counted, not kept.
    var body: ByteBuffer
    var bodyBytes = 0
    var receivedAt: Date
    var started: NIODeadline
    var grant: ProviderTokenSession.Grant?
    /// The injected fault that decided this exchange's answer, if one did.
    var fault: Fault?
    /// Set by a `reset` fault: the stream is reset with this HTTP/2 error code instead of answered.
    var resetCode: Int?
    /// Set by a `hang` at `response`: the stream is never answered, and the push is not processed.
    var hung = false
    /// What the request names that this replica does not know and another may have written (docs/cluster.md): the
    /// store is asked before the answer. Only on a replica.
    var unknown: Unknown?

    enum Unknown: Sendable {
        /// A token no device holds as far as this replica knows, refused `BadDeviceToken` unless another replica
        /// registered it.
        case token(DeviceToken)
        /// A channel refused `ChannelNotRegistered` unless another replica created it.
        case channel(String)
    }
    /// The request's span, when tracing is on (``PushTracing``); ended with its record. Boxed: an existential in
    /// place would make every exchange five words larger, copied with it whether tracing is on or not.
    var span: PushTracing.Box?

    /// What the body may grow to before the request is answered early: the push type's payload limit, or the
    /// largest limit when the head was already refused (the answer is the head's rejection either way).
    var limit: Int {
        switch verdict {
        case .success(.push(let plan)): plan.payloadLimit
        case .success(.broadcast): BroadcastPlan.payloadLimit
        case .success(.channel): ChannelPlan.bodyLimit
        case .failure: PushType.voip.payloadLimit
        }
    }

    /// The body as kept, as text (for the record and the device).
    var bodyText: String { String(buffer: body) }

    /// Whether the body has crossed ``limit``.
    var isOversized: Bool { bodyBytes > limit }

    /// Keeps what fits of `chunk` and counts all of it.
    mutating func receive(_ chunk: ByteBuffer) {
        var chunk = chunk
        bodyBytes += chunk.readableBytes
        let room = limit - body.readableBytes
        if room > 0, let kept = chunk.readSlice(length: min(room, chunk.readableBytes)) {
            body.writeImmutableBuffer(kept)
        }
    }
}
