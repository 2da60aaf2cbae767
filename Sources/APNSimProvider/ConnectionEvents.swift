import NIOCore
import NIOHPACK
import NIOHTTP2
import Synchronization

/// What the server said at connection level: SETTINGS, GOAWAY, PING ACKs. Written on the event loop, read anywhere.
final class ConnectionEvents: Sendable {
    private struct State {
        var settings: [HTTP2SettingsParameter: Int] = [:]
        var sawSettings = false
        var settingsWaiters: [EventLoopPromise<Void>] = []
        var goAway: GoAwayFrame?
        var goAwayWaiters: [EventLoopPromise<GoAwayFrame?>] = []
        var pingWaiters: [EventLoopPromise<Void>] = []
        var closeReason: String?
        var firstFrames: [String] = []
    }
    private let state = Mutex(State())

    let firstSettings = Waiter()

    var settings: [HTTP2SettingsParameter: Int] { state.withLock { $0.settings } }

    /// Why the connection ended, once it has: an error, a GOAWAY, or the server closing it.
    var closeReason: String? { state.withLock { $0.closeReason } }

    /// The first frames the server sent, as ``FrameTrace`` saw them.
    var firstFrames: [String] { state.withLock { $0.firstFrames } }

    func received(frame: String) {
        state.withLock { $0.firstFrames.append(frame) }
    }

    /// Notes the first reason the connection is ending.
    func ending(because reason: String) {
        state.withLock { state in
            if state.closeReason == nil { state.closeReason = reason }
        }
    }

    func received(settings: HTTP2Settings) {
        state.withLock { state in
            for setting in settings { state.settings[setting.parameter] = setting.value }
        }
        firstSettings.fire()
    }

    func received(goAway: GoAwayFrame) {
        let waiters = state.withLock { state in
            state.goAway = goAway
            defer { state.goAwayWaiters.removeAll() }
            return state.goAwayWaiters
        }
        waiters.forEach { $0.succeed(goAway) }
    }

    func receivedPingAck() {
        let waiters = state.withLock { state in
            defer { state.pingWaiters.removeAll() }
            return state.pingWaiters
        }
        waiters.forEach { $0.succeed() }
    }

    func pingAck(_ promise: EventLoopPromise<Void>) {
        state.withLock { $0.pingWaiters.append(promise) }
    }

    func waitForGoAway(closeFuture: EventLoopFuture<Void>) async -> GoAwayFrame? {
        let promise = closeFuture.eventLoop.makePromise(of: GoAwayFrame?.self)
        let existing: GoAwayFrame? = state.withLock { state in
            if let goAway = state.goAway { return goAway }
            state.goAwayWaiters.append(promise)
            return nil
        }
        if let existing {
            promise.succeed(existing)
            return existing
        }
        closeFuture.whenComplete { _ in
            // Give an in-flight GOAWAY read the same turn of the loop; then report what was seen.
            promise.succeed(self.state.withLock { $0.goAway })
        }
        return try? await promise.futureResult.get()
    }

    /// A one-shot signal that can be awaited before or after it fires.
    final class Waiter: Sendable {
        private let state = Mutex<(fired: Bool, waiters: [EventLoopPromise<Void>])>((false, []))

        func fire() {
            let waiters = state.withLock { state -> [EventLoopPromise<Void>] in
                guard !state.fired else { return [] }
                state.fired = true
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            waiters.forEach { $0.succeed() }
        }

        func futureResult(on loop: any EventLoop) -> EventLoopFuture<Void> {
            let promise = loop.makePromise(of: Void.self)
            let fired = state.withLock { state in
                if !state.fired { state.waiters.append(promise) }
                return state.fired
            }
            if fired { promise.succeed() }
            return promise.futureResult
        }
    }
}

/// Feeds root-stream frames of the client connection into ``ConnectionEvents``.
final class ConnectionEventsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    private let events: ConnectionEvents

    init(events: ConnectionEvents) {
        self.events = events
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .settings(.settings(let settings)):
            events.received(settings: settings)
        case .goAway(let lastStreamID, let errorCode, let opaqueData):
            let debug = opaqueData.map { String(buffer: $0) } ?? ""
            events.ending(because: "the server sent GOAWAY \(debug)")
            events.received(goAway: GoAwayFrame(lastStreamID: Int(lastStreamID), errorCode: UInt32(errorCode.networkCode),
                                                debugData: debug))
        case .ping(_, ack: true):
            events.receivedPingAck()
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        events.ending(because: events.settings.isEmpty ? "the server closed the connection before HTTP/2 began (during or just after the TLS handshake)"
                                                       : "the server closed the connection")
        events.firstSettings.fire()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        events.ending(because: "\(error)")
        context.close(promise: nil)
    }
}

/// Collects one stream's response frames.
final class ResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload

    private let promise: EventLoopPromise<ProviderResponse>
    private var response = ProviderResponse(status: 0, headers: [], body: [], frames: [], resetCode: nil)
    private var done = false

    init(promise: EventLoopPromise<ProviderResponse>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let headers):
            response.frames.append(.headers(endStream: headers.endStream))
            for header in headers.headers {
                if header.name == ":status" { response.status = Int(header.value) ?? 0 }
                response.headers.append((header.name, header.value))
            }
            if headers.endStream { complete() }
        case .data(let data):
            guard case .byteBuffer(let buffer) = data.data else { return }
            response.frames.append(.data(bytes: buffer.readableBytes, endStream: data.endStream))
            response.body += buffer.readableBytesView
            if data.endStream { complete() }
        case .rstStream(let code):
            response.resetCode = UInt32(code.networkCode)
            complete()
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if response.status == 0 && !done {
            done = true
            promise.fail(ProviderClientError("the stream closed without a response"))
        } else {
            complete()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !done {
            done = true
            promise.fail(error)
        }
        context.close(promise: nil)
    }

    private func complete() {
        guard !done else { return }
        done = true
        promise.succeed(response)
    }
}

public struct ProviderClientError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
