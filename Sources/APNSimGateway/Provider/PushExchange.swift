import APNSimCore
import Foundation
import NIOCore

/// One push request on one HTTP/2 stream, from its HEADERS to its answer: the head, what validation of the head
/// decided, and as much of the body as the push type allows.
struct PushExchange {
    var head: PushRequestHead
    var verdict: Result<PushPlan, Rejection>
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

    /// What the body may grow to before the request is answered early: the push type's payload limit, or the
    /// largest limit when the head was already refused (the answer is the head's rejection either way).
    var limit: Int {
        switch verdict {
        case .success(let plan): plan.payloadLimit
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
