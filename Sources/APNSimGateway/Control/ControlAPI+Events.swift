import APNSimStore
import Foundation
import Hummingbird
import NIOCore
import Synchronization

extension ControlAPI {
    /// `GET /v1/events`: `event: deliveries` each time the delivery record changes, `event: sends` each time a
    /// provider request is recorded, `event: connections` each time a connection is refused or closed, `event: devices` when what `GET /v1/devices` shows changes (the page then
    /// asks for what is new), `event: reset` when the record was emptied (`POST /v1/reset`: the page starts over),
    /// and a comment every 15 s so proxies keep the stream. It ends after five minutes (EventSource reconnects by itself) or within a second of the gateway
    /// starting to shut down.
    func events() -> Response {
        // What the page follows, as event name, counter and the field its count goes in (`reset` first: the page
        // then starts over before it asks for anything new).
        let kinds: [(event: String, counter: ChangeCounter, field: String?)] = [
            ("reset", deliveries.erasures, nil), ("deliveries", deliveries.batches, "batches"),
            ("sends", recorder.batches, "batches"), ("devices", devices.revisions, "revision"),
            ("connections", connectionRecords.batches, "batches"),
        ]
        let signal = deliveries.changes
        let stopping = self.stopping
        let run = self.run
        let body = ResponseBody { writer in
            // The hello names this run of the gateway: a page that sees another one starts over.
            try await writer.write(ByteBuffer(string: "retry: 1000\nevent: hello\ndata: {\"run\":\"\(run)\"}\n\n"))
            let end = ContinuousClock.now + .seconds(300)
            var seen = kinds.map(\.counter.count)
            var quiet = ContinuousClock.now
            while ContinuousClock.now < end, !Task.isCancelled, !stopping.isSet {
                // The generation before the counts: a change counted in between wakes the wait at once.
                let generation = signal.generation
                var now = kinds.map(\.counter.count)
                if now == seen {
                    await signal.nextChange(since: generation, before: min(end, .now + .seconds(1)))
                    now = kinds.map(\.counter.count)
                }
                let message = kinds.indices.filter { now[$0] != seen[$0] }.map { index in
                    "event: \(kinds[index].event)\ndata: {\(kinds[index].field.map { "\"\($0)\":\(now[index])" } ?? "")}\n\n"
                }.joined()
                seen = now
                if !message.isEmpty {
                    quiet = .now
                    try await writer.write(ByteBuffer(string: message))
                } else if ContinuousClock.now - quiet > .seconds(15) {
                    quiet = .now
                    try await writer.write(ByteBuffer(string: ": still here\n\n"))
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }
}

/// Set when the gateway starts to shut down, so open event streams end instead of holding the control API open.
final class StopSignal: Sendable {
    private let value = Mutex(false)

    var isSet: Bool { value.withLock { $0 } }

    func set() { value.withLock { $0 = true } }
}
