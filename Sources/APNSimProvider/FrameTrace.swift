import NIOCore

/// Notes the first frames a server sends on a provider connection (type, flags, stream), from the bytes between TLS
/// and HTTP/2, so an error on a connection that ended early can say what the server had sent by then.
final class FrameTrace: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// How many frame headers are kept; the first ones are what matters for a connection that failed at its start.
    private static let kept = 12
    private let events: ConnectionEvents
    private var pending: [UInt8] = []
    private var skip = 0
    private var seen = 0

    init(events: ConnectionEvents) {
        self.events = events
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if seen < Self.kept { note(buffer.readableBytesView) }
        context.fireChannelRead(data)
    }

    private func note(_ bytes: ByteBufferView) {
        var bytes = bytes[...]
        while !bytes.isEmpty, seen < Self.kept {
            if skip > 0 {
                let dropped = min(skip, bytes.count)
                bytes = bytes.dropFirst(dropped)
                skip -= dropped
                continue
            }
            let needed = 9 - pending.count
            pending += bytes.prefix(needed)
            bytes = bytes.dropFirst(needed)
            guard pending.count == 9 else { return }
            let length = Int(pending[0]) << 16 | Int(pending[1]) << 8 | Int(pending[2])
            let stream = (UInt32(pending[5]) & 0x7f) << 24 | UInt32(pending[6]) << 16 | UInt32(pending[7]) << 8 | UInt32(pending[8])
            events.received(frame: Self.name(type: pending[3], flags: pending[4]) + (stream == 0 ? "" : " on stream \(stream)"))
            pending.removeAll(keepingCapacity: true)
            skip = length
            seen += 1
        }
    }

    static func name(type: UInt8, flags: UInt8) -> String {
        switch type {
        case 0x0: "DATA"
        case 0x1: "HEADERS"
        case 0x3: "RST_STREAM"
        case 0x4: flags & 0x1 != 0 ? "SETTINGS ACK" : "SETTINGS"
        case 0x6: flags & 0x1 != 0 ? "PING ACK" : "PING"
        case 0x7: "GOAWAY"
        case 0x8: "WINDOW_UPDATE"
        default: "frame type \(type)"
        }
    }
}

@available(*, unavailable)
extension FrameTrace: Sendable {}
