import APNSimRules
import APNSimStore
import Foundation
import Logging
import Synchronization
import Tracing

/// One trace per push (docs/tracing.md): the provider's request (continuing the provider's `traceparent`, or whatever
/// the tracer's propagation reads), its validation and routing, then what the device reported of it (the device
/// link's delivery, the extension run, the display), with the apns-id and the delivery ID as attributes.
///
/// Off unless a tracer is given (``GatewayConfiguration/tracer``, or a bootstrapped `InstrumentationSystem`, as
/// `apnsim` does when built with the OpenTelemetry trait and `OTEL_*` variables ask for it): then the provider path
/// asks one `nil` check per push and nothing else. The device's part is made from its delivery record when the
/// record is written, as spans with the times the record holds: devices run in their own processes, and their
/// receipts already carry those times.
///
/// With tracing on, the gateway writes a `debug` log record for each push answered and each delivery ended, inside
/// its span's context, so a log handler's metadata provider (swift-otel's, in `apnsim`) adds the trace and span IDs.
final class PushTracing: Sendable {
    let tracer: (any Tracer)?
    let logger: Logger
    /// The request span's context of recent pushes, by apns-id, for the delivery spans to hang from: kept for the last
    /// ``remembered`` pushes (a broadcast's apns-id has one delivery per device).
    private let contexts = Mutex(Recent<ServiceContext>())
    /// The `apnsim.deliver` span of each delivery on its way, by delivery ID, until the device's receipt ends it.
    private let delivering = Mutex(Recent<any Span>())
    static let remembered = 100_000

    /// The last ``remembered`` values by key, the oldest forgotten first (a device that never answers leaks nothing).
    private struct Recent<Value> {
        var byID: [String: Value] = [:]
        var order: [String] = []
        var start = 0

        mutating func add(_ id: String, _ value: Value) {
            if byID.updateValue(value, forKey: id) == nil { order.append(id) }
            if order.count - start > PushTracing.remembered {
                byID[order[start]] = nil
                start += 1
                if start > PushTracing.remembered {
                    order.removeFirst(start)
                    start = 0
                }
            }
        }

        mutating func take(_ id: String) -> Value? {
            byID.removeValue(forKey: id)
        }
    }

    init(tracer: (any Tracer)?, logger: Logger) {
        self.tracer = tracer
        self.logger = logger
    }

    /// A request's span, kept by reference in its exchange.
    final class Box: Sendable {
        let span: any Span
        init(_ span: any Span) { self.span = span }
    }

    /// The span of one provider request, started when its HEADERS arrive; `nil` when tracing is off.
    func requestStarted(_ head: PushRequestHead) -> Box? {
        guard let tracer else { return nil }
        var context = ServiceContext.topLevel
        tracer.extract(head.headers, into: &context, using: HeaderExtractor())
        let route = Self.route(head.path)
        let span = tracer.startSpan("\(head.method) \(route)", context: context, ofKind: .server)
        span.attributes["http.request.method"] = head.method
        span.attributes["url.path"] = route
        return Box(span)
    }

    /// A child of `parent` covering `body` (validation, routing), when tracing is on.
    func child<T>(_ name: String, of parent: Box?, _ body: () -> T) -> T {
        guard let tracer, let parent else { return body() }
        let span = tracer.startSpan(name, context: parent.span.context, ofKind: .internal)
        defer { span.end() }
        return body()
    }

    /// Ends the request span with its answer; an accepted push's context is kept for its deliveries.
    func requestAnswered(_ box: Box?, apnsID: String, uniqueID: String?, status: Int, reason: String?) {
        guard let span = box?.span else { return }
        span.attributes["apns.id"] = apnsID
        if let uniqueID { span.attributes["apns.unique_id"] = uniqueID }
        span.attributes["http.response.status_code"] = status
        if let reason {
            span.attributes["apns.reason"] = reason
            span.setStatus(SpanStatus(code: .error, message: reason))
        }
        let context = span.context
        if status == 200 {
            contexts.withLock { $0.add(apnsID, context) }
        }
        ServiceContext.withValue(context) {
            logger.debug("push answered", metadata: ["apns-id": "\(apnsID)", "status": "\(status)", "reason": "\(reason ?? "")"])
        }
        span.end()
    }

    /// The device's part of the pushes in `events` (the delivery record's batch): `apnsim.deliver` from the push's
    /// acceptance to the device's receipt, and inside it the extension run and the display.
    func delivered(_ events: [DeliveryEvent]) {
        guard let tracer else { return }
        for event in events {
            switch event {
            case .accepted(let record):
                guard record.outcome == nil, let parent = contexts.withLock({ $0.byID[record.apnsID] }) else { continue }
                let deliver = tracer.startSpan("apnsim.deliver", context: parent, ofKind: .internal, at: Self.instant(record.acceptedAt))
                deliver.attributes["apns.id"] = record.apnsID
                deliver.attributes["apnsim.delivery.id"] = record.id
                deliver.attributes["apnsim.device"] = record.device
                deliver.attributes["apnsim.bundle_id"] = record.bundleID
                let id = record.id
                delivering.withLock { $0.add(id, deliver) }
            case .receipt(let id, let outcome, _, _, let at, let extensionRun, _, _):
                guard let deliver = delivering.withLock({ $0.take(id) }) else { continue }
                deliver.attributes["apnsim.outcome"] = outcome.rawValue
                if let run = extensionRun.flatMap(ExtensionRun.Figures.ofRunThatRan) {
                    let started = at.addingTimeInterval(-Double(run.durationMs) / 1000)
                    let span = tracer.startSpan("device.extension", context: deliver.context, ofKind: .internal, at: Self.instant(started))
                    span.attributes["apnsim.extension.kind"] = run.kind
                    span.attributes["apnsim.extension.outcome"] = run.outcome
                    span.attributes["apnsim.extension.duration_ms"] = run.durationMs
                    span.end(at: Self.instant(at))
                }
                if outcome == .displayed {
                    tracer.startSpan("device.display", context: deliver.context, ofKind: .internal, at: Self.instant(at)).end(at: Self.instant(at))
                }
                ended(deliver, id: id, outcome: outcome.rawValue, at: at)
            case .forgotten(let id, let detail, let at):
                guard let deliver = delivering.withLock({ $0.take(id) }) else { continue }
                deliver.attributes["apnsim.outcome"] = "dropped"
                deliver.setStatus(SpanStatus(code: .error, message: detail))
                ended(deliver, id: id, outcome: "dropped", at: at)
            default:
                continue
            }
        }
    }

    /// Ends a delivery's span at the device's receipt, with its log record inside it.
    private func ended(_ deliver: any Span, id: String, outcome: String, at: Date) {
        ServiceContext.withValue(deliver.context) {
            logger.debug("push delivered", metadata: ["delivery": "\(id)", "outcome": "\(outcome)"])
        }
        deliver.end(at: Self.instant(at))
    }

    /// The request's path with the token left out (span names and attributes stay bounded).
    static func route(_ path: String) -> String {
        if path.hasPrefix("/3/device/") { return "/3/device/{token}" }
        if path.hasPrefix("/4/broadcasts/apps/") { return "/4/broadcasts/apps/{bundleID}" }
        return String(path.prefix { $0 != "?" })
    }

    static func instant(_ date: Date) -> DefaultTracerClock.Timestamp {
        DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: UInt64(max(0, date.timeIntervalSince1970 * 1_000_000_000)))
    }
}

/// Reads propagation headers (`traceparent`, `tracestate`…) from a request's header list.
struct HeaderExtractor: Extractor {
    func extract(key: String, from carrier: [(String, String)]) -> String? {
        carrier.first { $0.0 == key }?.1
    }
}
