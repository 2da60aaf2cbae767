import Foundation
import Logging
import ServiceLifecycle
import Tracing
#if OpenTelemetry
import OTel
#endif

/// Traces to an OpenTelemetry collector over OTLP/HTTP (docs/tracing.md): off unless the standard `OTEL_*` variables
/// ask for them, and only in a build with the `OpenTelemetry` package trait (`swift build --traits OpenTelemetry`,
/// as the Dockerfile builds): swift-otel adds minutes to a clean build, so the README's default build leaves it out.
enum Telemetry {
    /// Whether the environment asks for traces: an OTLP endpoint or a traces exporter named (`OTEL_SDK_DISABLED=true`
    /// or `OTEL_TRACES_EXPORTER=none` says no). OpenTelemetry's SDKs export by default; apnsim, a test tool often
    /// run without a collector, waits to be asked.
    static func wanted(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        if environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" { return false }
        if environment["OTEL_TRACES_EXPORTER"]?.lowercased() == "none" { return false }
        // An empty value is unset (a compose file's `${OTEL_EXPORTER_OTLP_ENDPOINT:-}`).
        return ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER"].contains { environment[$0]?.isEmpty == false }
    }

    /// Whether this build can export traces.
    static var available: Bool {
        #if OpenTelemetry
        true
        #else
        false
        #endif
    }

    /// Bootstraps the tracer when the environment asks for traces; returns the exporter's service, to run beside the
    /// command's own (it sends what is left when they stop), or `nil`.
    static func bootstrap(name: String) throws -> (any Service)? {
        guard wanted() else { return nil }
        #if OpenTelemetry
        var configuration = OTel.Configuration.default
        configuration.serviceName = "apnsim-\(name)"
        configuration.logs.enabled = false
        configuration.metrics.enabled = false  // GET /metrics serves them (docs/metrics.md)
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(backend.factory)
        return backend.service
        #else
        Console.say("apnsim \(name): OTEL_* variables ask for traces, but this build has no exporter; build with --traits OpenTelemetry (docs/tracing.md)")
        return nil
        #endif
    }

    /// Adds the current span's trace and span IDs to every log record written inside it (`trace_id`, `span_id`).
    static var logMetadata: Logger.MetadataProvider? {
        #if OpenTelemetry
        wanted() ? OTel.makeLoggingMetadataProvider() : nil
        #else
        nil
        #endif
    }
}
