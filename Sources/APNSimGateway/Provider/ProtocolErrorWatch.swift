import NIOCore
import NIOHTTP2

/// Tells a stream error from a connection error, and puts the right last-stream-id in the GOAWAY of the latter.
///
/// NIOHTTP2 answers a protocol error itself: RST_STREAM for a stream error (RFC 9113 §5.4.2: an upper-case
/// header name, a pseudo-header after a regular one, a missing `:path`), GOAWAY for a connection error (§5.4.1),
/// and then reports the same underlying error in `errorCaught` either way. The frame it wrote is the only way
/// to tell which it was, so this watch is its frame delegate and notes the error frames it writes:
/// ``ProviderConnectionHandler`` then keeps the connection for a stream error and closes it after a GOAWAY.
///
/// NIOHTTP2's GOAWAY carries last-stream-id 2^31-1 (or 0 for a misbehaving peer), which tells the client
/// nothing about which of its streams were processed. RFC 9113 §6.8 asks for the last stream the server
/// acted on, so the client can retry the rest safely. NIOHTTP2 writes each frame as one buffer; the
/// ``Rewriter``, just below it in the pipeline, replaces the identifier in that buffer with
/// ``ProviderConnection/lastStreamID``.
final class ProtocolErrorWatch: NIOHTTP2FrameDelegate {
    private let connection: ProviderConnection
    /// The code of the GOAWAY NIOHTTP2 wrote for a connection error, once it has.
    private(set) var connectionError: HTTP2ErrorCode?
    /// Error RST_STREAMs NIOHTTP2 wrote whose `errorCaught` has not come yet.
    private var streamErrors = 0
    /// Set between NIOHTTP2 encoding its error GOAWAY and writing it.
    fileprivate var rewriteNextWrite = false
    /// The stream limit to write in place of the placeholder, between NIOHTTP2 encoding a SETTINGS frame and writing it.
    fileprivate var streamLimitToWrite: Int?
    /// Streams the gateway itself is resetting with REFUSED_STREAM: not NIOHTTP2's stream errors.
    private var ownResets: Set<HTTP2StreamID> = []

    init(connection: ProviderConnection) {
        self.connection = connection
    }

    /// The gateway is about to reset `streamID` itself (over the stream limit).
    func resetting(_ streamID: HTTP2StreamID) {
        ownResets.insert(streamID)
    }

    func wroteFrame(_ frame: HTTP2Frame) {
        switch frame.payload {
        case .settings(.settings(let settings)):
            // Every SETTINGS the gateway writes passes here, in order: the allowance waits for each one's ACK.
            var limit = settings.last { $0.parameter == .maxConcurrentStreams }?.value
            if limit == ProviderConnection.streamLimitPlaceholder {
                limit = connection.takeAdvertisedStreamLimit()
                streamLimitToWrite = limit
            }
            connection.state.allowance.settingsSent(maxConcurrentStreams: limit)
        case .rstStream where ownResets.remove(frame.streamID) != nil:
            break
        case .goAway(_, let code, _) where code != .noError:
            // apnsim's own GOAWAYs (idle, shutdown, certificate environment) say NO_ERROR and carry the right ID.
            connectionError = code
            rewriteNextWrite = true
        case .rstStream(let code) where code != .noError:
            // apnsim resets only with NO_ERROR (a body past its limit, after the answer), so this is NIOHTTP2's.
            streamErrors += 1
        default:
            break
        }
    }

    /// What the error reported after an error frame was: takes one noted stream error if there is one.
    func takeStreamError() -> Bool {
        guard streamErrors > 0 else { return false }
        streamErrors -= 1
        return true
    }

    /// Patches the last-stream-id of the error GOAWAY NIOHTTP2 writes; every other write passes untouched.
    final class Rewriter: ChannelOutboundHandler {
        typealias OutboundIn = IOData
        typealias OutboundOut = IOData

        private let watch: ProtocolErrorWatch

        init(watch: ProtocolErrorWatch) {
            self.watch = watch
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if let limit = watch.streamLimitToWrite, case .byteBuffer(var frame) = unwrapOutboundIn(data) {
                watch.streamLimitToWrite = nil
                Self.writeStreamLimit(limit, in: &frame)
                context.write(wrapOutboundOut(.byteBuffer(frame)), promise: promise)
                return
            }
            guard watch.rewriteNextWrite, case .byteBuffer(var frame) = unwrapOutboundIn(data) else {
                context.write(data, promise: promise)
                return
            }
            watch.rewriteNextWrite = false
            // A GOAWAY is the 9-byte frame header, then the 31-bit last-stream-id (RFC 9113 §6.8).
            let start = frame.readerIndex
            if frame.readableBytes >= 13, frame.getInteger(at: start + 3, as: UInt8.self) == 0x7 {
                frame.setInteger(UInt32(Int32(watch.connection.lastStreamID)), at: start + 9)
            }
            context.write(wrapOutboundOut(.byteBuffer(frame)), promise: promise)
        }

        /// Puts `limit` in place of the placeholder in a SETTINGS frame: the 9-byte frame header, then six bytes a
        /// setting, its 16-bit identifier (3: SETTINGS_MAX_CONCURRENT_STREAMS) and 32-bit value (RFC 9113 §6.5.1).
        static func writeStreamLimit(_ limit: Int, in frame: inout ByteBuffer) {
            let start = frame.readerIndex
            guard frame.readableBytes >= 9, frame.getInteger(at: start + 3, as: UInt8.self) == 0x4 else { return }
            var offset = start + 9
            while offset + 6 <= frame.writerIndex {
                if frame.getInteger(at: offset, as: UInt16.self) == 3,
                   frame.getInteger(at: offset + 2, as: UInt32.self) == UInt32(ProviderConnection.streamLimitPlaceholder) {
                    frame.setInteger(UInt32(clamping: limit), at: offset + 2)
                }
                offset += 6
            }
        }
    }
}

@available(*, unavailable)
extension ProtocolErrorWatch: Sendable {}

@available(*, unavailable)
extension ProtocolErrorWatch.Rewriter: Sendable {}
