import APNSimDevice
import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import InMemoryTracing
import Logging
import Testing
import Tracing

/// One trace per push (docs/tracing.md), through swift-distributed-tracing's in-memory tracer: the spans a push
/// makes, their parents, and the apns-id and delivery ID on them. (The OTLP export of the same spans is checked by
/// `Interop/tracing_check.sh` against a build with the OpenTelemetry trait.)
@Suite("Tracing", .endToEnd)
struct TracingTests {
    @Test("A push continues the provider's trace: request, validation, routing, delivery, extension and display, each under its parent")
    func onePush() async throws {
        let tracer = InMemoryTracer()
        // The log handler adds the current span's IDs, as swift-otel's metadata provider does in `apnsim`.
        let logs = RecordingLogHandler.Records()
        let inSpan = Logger.MetadataProvider {
            guard let span = ServiceContext.current?.inMemorySpanContext else { return [:] }
            return ["trace_id": "\(span.traceID)", "span_id": "\(span.spanID)"]
        }
        var logger = Logger(label: "apnsim.gateway.test") { _ in RecordingLogHandler(records: logs, metadataProvider: inSpan) }
        logger.logLevel = .debug
        try await withGateway({ $0.tracer = tracer }, logger: logger) { harness in
            try await withDevice(harness, apps: [appWithExtension(.scripted)]) { device in
                let token = try #require(device.tokens["com.example.app"]).hex
                let apnsID = UUID().uuidString.uppercased()
                let client = try await harness.connect()
                // The provider's own span, in the in-memory tracer's propagation headers (OpenTelemetry's is traceparent).
                let response = try await client.send(.push(
                    token: token, payload: ExtensionRuntimeTests.script(#"{"action":"modify","title":"Traced"}"#),
                    headers: harness.headers(jwt: harness.jwt(), extra: [
                        ("apns-id", apnsID), (InMemoryTracer.traceIDKey, "provider-trace"), (InMemoryTracer.spanIDKey, "provider-span"),
                    ])))
                await client.close()
                #expect(response.status == 200)
                let control = harness.control
                let delivery = try #require(try await control.deliveries("apnsId=\(apnsID)").first)
                #expect(delivery["outcome"] as? String == "displayed")

                let spans = tracer.finishedSpans
                func span(_ name: String) throws -> FinishedInMemorySpan {
                    try #require(spans.first { $0.operationName == name }, "no \(name) span among \(spans.map(\.operationName))")
                }
                let request = try span("POST /3/device/{token}")
                #expect(request.traceID == "provider-trace" && request.parentSpanID == "provider-span", "the provider's trace is continued")
                #expect(request.kind == .server)
                #expect(request.attributes["apns.id"]?.toSpanAttribute() == .string(apnsID))
                #expect(request.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
                for name in ["apns.validate", "apns.route"] {
                    #expect(try span(name).parentSpanID == request.spanID, "\(name) is the request's child")
                }
                let deliver = try span("apnsim.deliver")
                #expect(deliver.parentSpanID == request.spanID && deliver.traceID == "provider-trace")
                #expect(deliver.attributes["apnsim.delivery.id"]?.toSpanAttribute() == .string(delivery["id"] as? String ?? ""))
                #expect(deliver.attributes["apns.id"]?.toSpanAttribute() == .string(apnsID))
                #expect(deliver.attributes["apnsim.outcome"]?.toSpanAttribute() == .string("displayed"))
                let run = try span("device.extension")
                #expect(run.parentSpanID == deliver.spanID)
                #expect(run.attributes["apnsim.extension.outcome"]?.toSpanAttribute() == .string("completed"))
                #expect(try span("device.display").parentSpanID == deliver.spanID)

                // The push's log records are written inside its spans, so they carry its trace.
                let answered = try #require(logs.all.first { $0.message == "push answered" && $0.metadata["apns-id"] == "\(apnsID)" })
                #expect(answered.metadata["trace_id"] == "provider-trace" && answered.metadata["span_id"] == "\(request.spanID)")
                let ended = try #require(logs.all.first { $0.message == "push delivered" })
                #expect(ended.metadata["trace_id"] == "provider-trace" && ended.metadata["span_id"] == "\(deliver.spanID)")
                #expect(ended.metadata["outcome"] == "displayed")
            }
        }
    }
}
