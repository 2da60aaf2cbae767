import APNSimRules
@testable import APNSimGateway
import Foundation
import NIOCore
import NIOHTTP2
import Testing

/// Every rule of ``ProviderConnectionStateMachine``, driven with plain values: no channel, no socket, no clock.
@Suite("Provider connection state machine")
struct ProviderConnectionStateMachineTests {
    typealias Machine = ProviderConnectionStateMachine

    static func exchange(_ text: String = "") -> PushExchange {
        var body = ByteBuffer()
        body.writeString(text)
        return PushExchange(head: PushRequestHead(headers: [(":method", "POST")]),
                            verdict: .failure(Rejection(.missingTopic, "a test")), body: body, receivedAt: Date(timeIntervalSince1970: 0),
                            started: .now())
    }

    static func fault(_ kind: Fault.Kind, lastStreamId: Int? = nil, reason: String? = nil) -> Fault {
        var fault = Fault(kind: kind, reason: reason)
        fault.id = "f1"
        fault.lastStreamId = lastStreamId
        return fault
    }

    /// Opens `streamID` with no fault due, as the handler does after validating its head.
    static func open(_ machine: inout Machine, _ streamID: HTTP2StreamID, endStream: Bool = false) -> PushExchange? {
        #expect(machine.headersReceived(streamID: streamID, endStream: endStream) { nil } == .process)
        return machine.streamOpened(streamID, exchange: exchange(), endStream: endStream)
    }

    @Test("A stream is processed; its body is kept until END_STREAM; HEADERS on a stream already processed are trailers")
    func streams() {
        var machine = Machine()
        #expect(Self.open(&machine, 1, endStream: true) != nil, "HEADERS with END_STREAM: nothing to wait for")
        #expect(machine.lastStreamID == 1)
        #expect(Self.open(&machine, 3) == nil)
        #expect(machine.openStreams == 1)
        guard case .none = machine.dataReceived(streamID: 3, chunk: ByteBuffer(string: "{\"aps\":"), endStream: false) else {
            Issue.record("a body in two frames is not finished by the first")
            return
        }
        guard case .finish(let exchange) = machine.dataReceived(streamID: 3, chunk: ByteBuffer(string: "{}}"), endStream: true) else {
            Issue.record("END_STREAM finishes the push")
            return
        }
        #expect(exchange.bodyText == "{\"aps\":{}}")
        #expect(machine.openStreams == 0)
        #expect(machine.headersReceived(streamID: 3, endStream: true) { nil } == .ignore, "trailers")
        guard case .none = machine.dataReceived(streamID: 7, chunk: ByteBuffer(string: "x"), endStream: true) else {
            Issue.record("DATA for a stream never opened is dropped")
            return
        }
    }

    @Test("A body past its limit is answered early, saying whether the client is still sending; later DATA is dropped")
    func oversized() {
        var machine = Machine()
        _ = Self.open(&machine, 1)
        let tooBig = ByteBuffer(repeating: UInt8(ascii: "a"), count: PushType.voip.payloadLimit + 1)
        guard case .answerEarly(let exchange, let stillSending) = machine.dataReceived(streamID: 1, chunk: tooBig, endStream: false) else {
            Issue.record("an oversized body is answered at once")
            return
        }
        #expect(stillSending)
        #expect(exchange.bodyBytes == PushType.voip.payloadLimit + 1)
        #expect(exchange.body.readableBytes == PushType.voip.payloadLimit, "only what fits is kept")
        guard case .none = machine.dataReceived(streamID: 1, chunk: ByteBuffer(string: "more"), endStream: true) else {
            Issue.record("the rest of an answered body is dropped")
            return
        }
    }

    @Test("A drop fault due on a push: that push is refused and the connection closes without GOAWAY; nothing after is read")
    func dropOnStream() {
        var machine = Machine()
        _ = Self.open(&machine, 1, endStream: true)
        let drop = Self.fault(.drop)
        #expect(machine.headersReceived(streamID: 3, endStream: true) { drop }
                == .refuse(lastStreamID: 1, fault: drop, then: .drop(drop)))
        #expect(machine.phase == .closed)
        #expect(machine.headersReceived(streamID: 5, endStream: true) { Issue.record("no fault is asked for once closed"); return nil }
                == .ignore)
    }

    @Test("A hang at silence due on a push: the connection goes silent, reads nothing more, ignores idleness and faults, and closes only at shutdown")
    func silenceOnStream() {
        var machine = Machine()
        _ = Self.open(&machine, 1, endStream: true)
        var silence = Self.fault(.hang)
        silence.at = .hang(.silence)
        #expect(machine.headersReceived(streamID: 3, endStream: true) { silence } == .silence(silence))
        #expect(machine.phase == .silent)
        #expect(machine.headersReceived(streamID: 5, endStream: true) { Issue.record("no fault is asked for once silent"); return nil }
                == .ignore)
        #expect(machine.idleTimeout() == .none, "no GOAWAY IdleTimeout: a silent connection says nothing")
        #expect(machine.faultInjected(Self.fault(.goAway)) == .none)
        #expect(machine.shutdownRequested() == .close(dropped: nil))
    }

    @Test("A hang at window acts on an open connection, and due on a push lets that push through")
    func windowHang() {
        var machine = Machine()
        var window = Self.fault(.hang)
        window.at = .hang(.window)
        #expect(machine.faultInjected(window) == .holdWindow(window))
        #expect(machine.headersReceived(streamID: 1, endStream: true) { window } == .holdWindowThenProcess(window))
        #expect(machine.phase == .open)
    }

    @Test("A goAway fault due on a push with END_STREAM: the push is refused, then GOAWAY with the last stream processed")
    func goAwayOnStream() {
        var machine = Machine()
        _ = Self.open(&machine, 1, endStream: true)
        let fault = Self.fault(.goAway, reason: "Shutdown")
        let goAway = Machine.GoAway(lastStreamID: 1, reason: "Shutdown", fault: fault, drains: true)
        #expect(machine.headersReceived(streamID: 3, endStream: true) { fault } == .refuse(lastStreamID: 1, fault: fault, then: .goAway(goAway)))
        #expect(machine.headersReceived(streamID: 5, endStream: true) { Issue.record("no fault is asked for while going away"); return nil }
                == .refuse(lastStreamID: 1, fault: fault, then: .nothing), "streams above the last one are refused, naming the fault")
    }

    @Test("A goAway fault due on a push with a body: the GOAWAY waits for the end of that body")
    func goAwayAfterBody() {
        var machine = Machine()
        let fault = Self.fault(.goAway)
        #expect(machine.headersReceived(streamID: 1, endStream: false) { fault } == .refuse(lastStreamID: 0, fault: fault, then: .nothing))
        guard case .none = machine.dataReceived(streamID: 1, chunk: ByteBuffer(string: "{"), endStream: false) else {
            Issue.record("no GOAWAY while the refused body is arriving")
            return
        }
        guard case .goAway(let goAway) = machine.dataReceived(streamID: 1, chunk: ByteBuffer(string: "}"), endStream: true) else {
            Issue.record("the GOAWAY goes once the refused stream ends")
            return
        }
        #expect(goAway == .init(lastStreamID: 0, reason: "Shutdown", fault: fault, drains: true))
    }

    @Test("A goAway fault whose lastStreamId includes the push: GOAWAY first, then that push is processed")
    func goAwayThenProcess() {
        var machine = Machine()
        let fault = Self.fault(.goAway, lastStreamId: 5, reason: "MaintenanceWindow")
        var expected = Machine.GoAway(lastStreamID: 5, reason: "MaintenanceWindow", fault: fault, drains: true)
        expected.errorCode = .noError
        #expect(machine.headersReceived(streamID: 3, endStream: true) { fault } == .goAwayThenProcess(expected))
        #expect(machine.streamOpened(3, exchange: Self.exchange(), endStream: true) != nil)
        #expect(Self.open(&machine, 5, endStream: true) != nil, "stream 5 is still processed")
        #expect(machine.headersReceived(streamID: 7, endStream: true) { nil } == .refuse(lastStreamID: 5, fault: fault, then: .nothing))
    }

    @Test("After a draining GOAWAY the connection closes only once every push in flight has its answer written")
    func drain() {
        var machine = Machine()
        _ = Self.open(&machine, 1)                      // a body still arriving
        machine.answerHeld()                            // a latency fault holding an answer
        machine.answerAwaitsCommit()                    // a 200 waiting for the store
        let action = machine.shutdownRequested()
        guard case .goAway(let goAway) = action else {
            Issue.record("shutdown sends GOAWAY; got \(action)")
            return
        }
        #expect(goAway == .init(lastStreamID: 1, reason: "Shutdown", drains: true))
        #expect(machine.goAwayWritten(goAway) == .none, "three pushes in flight")
        #expect(machine.readBatchEnded() == (true, .none), "the 200 goes to the store's commit")
        guard case .finish = machine.dataReceived(streamID: 1, chunk: nil, endStream: true) else {
            Issue.record("the body ends")
            return
        }
        #expect(machine.readBatchEnded() == (false, .none), "the held answer and the commit are still out")
        machine.heldAnswerReleased()
        #expect(machine.readBatchEnded() == (false, .none), "the commit is still out")
        #expect(machine.batchCommitted() == .close(dropped: nil))
        #expect(machine.phase == .closed)
    }

    @Test("Shutdown with nothing in flight closes once its GOAWAY is written; the grace timer closes a drain that hangs")
    func shutdownAndGrace() {
        var idle = Machine()
        guard case .goAway(let goAway) = idle.shutdownRequested() else {
            Issue.record("shutdown sends GOAWAY")
            return
        }
        #expect(idle.goAwayWritten(goAway) == .close(dropped: nil))

        var hung = Machine()
        _ = Self.open(&hung, 1)
        _ = hung.shutdownRequested()
        #expect(hung.readBatchEnded() == (false, .none))
        #expect(hung.drainGraceExpired() == .close(dropped: nil))
        #expect(hung.drainGraceExpired() == .none, "closed once")
        var open = Machine()
        #expect(open.drainGraceExpired() == .none, "an open connection has no drain to expire")
    }

    @Test("One GOAWAY at most: idleness, shutdown and faults after the first ask for nothing more")
    func oneGoAway() {
        var machine = Machine()
        _ = Self.open(&machine, 1, endStream: true)
        let idle = machine.idleTimeout()
        let expected = Machine.GoAway(lastStreamID: 1, reason: "IdleTimeout", drains: false)
        #expect(idle == .goAway(expected))
        #expect(machine.shutdownRequested() == .none)
        #expect(machine.faultInjected(Self.fault(.goAway)) == .none)
        #expect(machine.goAwayWritten(expected) == .close(dropped: nil), "an idle GOAWAY closes once written")
        #expect(machine.idleTimeout() == .none)
    }

    @Test("A certificate for the other environment: GOAWAY BadCertificateEnvironment, last stream 0, then close")
    func certificateEnvironment() {
        var matching = Machine()
        #expect(matching.connectionStarted(certificateMatchesEnvironment: true) == .none)
        var wrong = Machine()
        let expected = Machine.GoAway(lastStreamID: 0, reason: "BadCertificateEnvironment", drains: false)
        #expect(wrong.connectionStarted(certificateMatchesEnvironment: false) == .goAway(expected))
        #expect(wrong.headersReceived(streamID: 1, endStream: true) { nil } == .refuse(lastStreamID: 0, fault: nil, then: .nothing))
    }

    @Test("Faults injected for open connections: GOAWAY with its last stream and code, a drop once, SETTINGS while open")
    func injected() {
        var machine = Machine()
        var settings = Self.fault(.settings)
        settings.maxConcurrentStreams = 1
        #expect(machine.faultInjected(settings) == .settings(maxConcurrentStreams: 1, fault: settings))
        var goAway = Self.fault(.goAway, lastStreamId: 0, reason: "ServiceUnavailable")
        goAway.errorCode = 2
        #expect(machine.faultInjected(goAway)
                == .goAway(.init(lastStreamID: 0, reason: "ServiceUnavailable", errorCode: .internalError, fault: goAway, drains: true)))
        let drop = Self.fault(.drop)
        #expect(machine.faultInjected(drop) == .close(dropped: drop), "a drop closes a draining connection too")
        #expect(machine.faultInjected(drop) == .none)
        #expect(machine.faultInjected(settings) == .none, "no SETTINGS on a closed connection")
        var other = Machine()
        #expect(other.faultInjected(Self.fault(.reject)) == .none, "push faults do not act on connections")
    }

    @Test("A protocol error's GOAWAY (NIOHTTP2's) closes the connection, once")
    func connectionError() {
        var machine = Machine()
        #expect(machine.connectionErrorSent() == .close(dropped: nil))
        #expect(machine.connectionErrorSent() == .none)
    }
}
