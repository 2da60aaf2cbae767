import APNSimRules
import NIOCore
import NIOHTTP2

extension HTTP2Frame {
    /// A GOAWAY carrying APNs' JSON debug data, `{"reason":"…"}` (Apple, "Establishing a connection to APNs").
    static func goAway(lastStreamID: HTTP2StreamID, reason: RejectionReason, allocator: ByteBufferAllocator,
                       errorCode: HTTP2ErrorCode = .noError) -> HTTP2Frame {
        let debug = allocator.buffer(string: #"{"reason":"\#(reason.rawValue)"}"#)
        return HTTP2Frame(streamID: .rootStream,
                          payload: .goAway(lastStreamID: lastStreamID, errorCode: errorCode, opaqueData: debug))
    }
}
