import APNSimRules
import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The media server's one common request, answered on the connection's event loop: `GET /media/NAME` with no query,
/// for a NAME with an extension whose file the server already keeps (``MediaFiles``). Everything else, and every
/// request while the router is still answering one on the same connection, goes on to Hummingbird's router, which
/// answers as it always did. The answer is the router's: 200, the same headers in the same order (`Content-Length`,
/// `Content-Type`, `Date`, `Server`) and the same bytes, counted in `/stats` the same way.
///
/// Why: a campaign's downloads are the rich push's costliest part after the device's own. Through the router each
/// took the server 173,000 instructions, 120,000 of them Hummingbird's request machinery (a task, its async
/// iterator and writer, hops between the event loop and Swift's concurrency threads); on the event loop it takes a
/// fraction (`Benchmarks/instructions.sh`, the rich path; docs/speed.md).
final class MediaFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let folder: String
    private let files: MediaFiles
    private let counts: MediaRequestCounts
    private let serverName: String
    /// Requests passed on to the router whose answers have not ended: while there are any, later requests go the
    /// same way, so a pipelining client gets its answers in order.
    private var routed = 0
    /// The request being answered here: its path and bytes, written when its end has been read; `nil` while the
    /// request being read goes to the router.
    private var answering: (path: String, name: String, bytes: [UInt8])?

    init(folder: String, files: MediaFiles, counts: MediaRequestCounts, serverName: String) {
        self.folder = folder
        self.files = files
        self.counts = counts
        self.serverName = serverName
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            if routed == 0, let (name, bytes) = servable(head) {
                answering = (head.path ?? "", name, bytes)
                return
            }
            answering = nil
            routed += 1
            context.fireChannelRead(data)
        case .body:
            if answering == nil { context.fireChannelRead(data) }  // a body sent with a GET answered here is dropped
        case .end:
            guard let (path, name, bytes) = answering else {
                context.fireChannelRead(data)
                return
            }
            answering = nil
            counts.add(path)
            var fields = HTTPFields()
            fields.reserveCapacity(4)
            fields[.contentLength] = String(bytes.count)
            fields[.contentType] = MediaServer.contentType(of: name)
            fields[.date] = HTTPDate.now()
            fields[.server] = serverName
            context.write(wrapOutboundOut(.head(HTTPResponse(status: .ok, headerFields: fields))), promise: nil)
            context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: bytes))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), routed > 0 { routed -= 1 }
        context.write(data, promise: promise)
    }

    /// The file a request is for, when it is the one request answered here.
    private func servable(_ head: HTTPRequest) -> (name: String, bytes: [UInt8])? {
        guard head.method == .get, let path = head.path, path.utf8.count > 7, path.hasPrefix("/media/"),
              head.headerFields[.connection] == nil else { return nil }
        let name = path.utf8.dropFirst(7)
        // A plain file name with an extension: no query, no escapes, no other path; not hidden.
        guard name.first != UInt8(ascii: "."), name.contains(UInt8(ascii: ".")),
              name.allSatisfy(Self.isPlainNameByte) else { return nil }
        let fileName = String(Substring(name))
        guard let bytes = files.keptContents(atPath: MediaServer.path(of: fileName, in: folder)) else { return nil }
        return (fileName, bytes)
    }

    private static func isPlainNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }
}

/// The `Date` header's value (RFC 9110's IMF-fixdate, as Hummingbird writes it), made once a second.
enum HTTPDate {
    private static let cache = Mutex<(second: Int, text: String)>((-1, ""))
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func now() -> String {
        let second = time(nil)
        return cache.withLock { cache in
            if cache.second != second { cache = (second, text(second)) }
            return cache.text
        }
    }

    /// `Fri, 27 Nov 2026 17:05:09 GMT` for that second since 1970.
    static func text(_ second: Int) -> String {
        var seconds = time_t(second)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
