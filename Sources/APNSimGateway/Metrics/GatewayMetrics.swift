import APNSimRules
import APNSimStore
import CoreMetrics
import Foundation
import Prometheus
import Synchronization

/// What a Prometheus scrape of `GET /metrics` reads (docs/metrics.md): counters of sends, deliveries and extension
/// runs, the request-to-display latency, and, read at the scrape, open connections, stored pushes and the process's
/// memory and descriptors.
///
/// Counted from the record's batches (``SendRecorder``, ``DeliveryRecorder``), so the provider's path pays nothing per
/// push: a scrape first writes what is queued, so it counts every request answered before it. Devices in other
/// processes or containers are counted from the receipts their links carry, so one scrape sees the whole world.
/// Each gateway has a registry of its own (two gateways of one test process count apart); ``factory`` is
/// swift-metrics' view of it, for code that reports through swift-metrics. Counters only grow: `POST /v1/reset`
/// empties the record, not them, as Prometheus expects of a counter.
final class GatewayMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    /// swift-metrics' factory over ``registry``.
    let factory: PrometheusMetricsFactory

    /// The counters and histograms the record's batches add to, each found in ``registry`` once.
    private let sendCounters: MetricCache<SendKey, Prometheus.Counter>
    private let outcomeCounters: MetricCache<String, Prometheus.Counter>
    private let runCounters: MetricCache<RunKey, Prometheus.Counter>
    private let downloadCounters: MetricCache<String, Prometheus.Counter>
    private let storedCounters: MetricCache<String, Prometheus.Counter>
    private let plainCounters: MetricCache<Plain, Prometheus.Counter>
    private let histograms: MetricCache<Timing, Prometheus.DurationHistogram>

    init() {
        factory = PrometheusMetricsFactory(registry: registry)
        let registry = registry
        sendCounters = MetricCache { key in
            let pushType = key.pushType.map { Self.pushTypes.contains($0) ? $0 : "other" } ?? ""
            return registry.makeCounter(descriptor: Self.sends, labels: [("status", String(key.status)), ("reason", key.reason ?? ""),
                                                                         ("push_type", pushType), ("environment", key.environment),
                                                                         ("auth", key.auth)])
        }
        outcomeCounters = MetricCache { registry.makeCounter(descriptor: Self.deliveries, labels: [("outcome", $0)]) }
        runCounters = MetricCache { registry.makeCounter(descriptor: Self.extensionRuns, labels: [("kind", $0.kind), ("outcome", $0.outcome)]) }
        downloadCounters = MetricCache { registry.makeCounter(descriptor: Self.mediaDownloads, labels: [("status", $0)]) }
        storedCounters = MetricCache { registry.makeCounter(descriptor: Self.storedTotal, labels: [("reason", $0)]) }
        plainCounters = MetricCache { registry.makeCounter(descriptor: $0.descriptor) }
        histograms = MetricCache { registry.makeDurationHistogram(descriptor: $0.descriptor, buckets: Self.latencyBuckets) }
    }

    /// A send counter's labels, of the record's own strings: no array, no new string per record (a batch is thousands at
    /// full load).
    struct SendKey: Hashable, Sendable {
        var status: Int, reason: String?, pushType: String?, environment: String, auth: String
    }

    /// An extension run counter's labels.
    struct RunKey: Hashable, Sendable {
        var kind: String, outcome: String
    }

    /// The counters without labels.
    enum Plain: Hashable, Sendable {
        case coalesced, mediaBytes

        var descriptor: MetricNameDescriptor {
            switch self {
            case .coalesced: GatewayMetrics.coalesced
            case .mediaBytes: GatewayMetrics.mediaBytes
            }
        }
    }

    /// The duration histograms.
    enum Timing: Hashable, Sendable {
        case displayLatency, extensionDuration, mediaDuration

        var descriptor: MetricNameDescriptor {
            switch self {
            case .displayLatency: GatewayMetrics.displayLatency
            case .extensionDuration: GatewayMetrics.extensionDuration
            case .mediaDuration: GatewayMetrics.mediaDuration
            }
        }
    }

    // MARK: - Names (Prometheus's naming conventions: https://prometheus.io/docs/practices/naming/)

    static var sends: MetricNameDescriptor {
        describe("apnsim_sends", "total",
                 "Provider API requests the gateway answered, by HTTP status, APNs reason, apns-push-type, environment and authentication.")
    }
    static var deliveries: MetricNameDescriptor {
        describe("apnsim_deliveries", "total",
                 "Accepted pushes the devices answered, by outcome (displayed, background, voip, liveactivity, replaced, suppressed, dropped).")
    }
    static var extensionRuns: MetricNameDescriptor {
        describe("apnsim_extension_runs", "total",
                 "Notification service extension runs, by kind and outcome (completed, expired, crashed, killed).")
    }
    static var extensionDuration: MetricNameDescriptor {
        describe("apnsim_extension_run_duration", "seconds",
                 "How long each service extension run took, from its start to the content shown.")
    }
    static var mediaDownloads: MetricNameDescriptor {
        describe("apnsim_media_downloads", "total",
                 "Files service extensions downloaded for attachments, by the server's HTTP status (none: no answer came).")
    }
    static var mediaBytes: MetricNameDescriptor {
        describe("apnsim_media_download", "bytes_total",
                 "Bytes service extensions downloaded for attachments.")
    }
    static var mediaDuration: MetricNameDescriptor {
        describe("apnsim_media_download_duration", "seconds",
                 "How long each attachment download took, from its request to its last byte or its failure.")
    }
    static var displayLatency: MetricNameDescriptor {
        describe("apnsim_push_display_latency", "seconds",
                 "From the provider's request accepted to the device's receipt that it displayed the push.")
    }
    static var refusedConnections: MetricNameDescriptor {
        describe("apnsim_provider_connections_refused", "total",
                 "Provider connections ended before HTTP/2 served them, by why: handshake_timeout, tls_error, not_http2, certificate_environment, or held by a hang fault.")
    }
    static var connections: MetricNameDescriptor {
        describe("apnsim_provider_connections", "",
                 "Provider connections open now.")
    }
    static var devicesOnline: MetricNameDescriptor {
        describe("apnsim_devices_online", "",
                 "Simulated devices linked to the gateway now.")
    }
    static var stored: MetricNameDescriptor {
        describe("apnsim_pushes_stored", "",
                 "Pushes stored for devices out of reach now (one per app, the newest), as APNs stores them.")
    }
    static var storedTotal: MetricNameDescriptor {
        describe("apnsim_stored_pushes", "total",
                 "Pushes the gateway stored instead of sending, by why: offline (the device out of reach) or power (Low Power Mode, priority 5).")
    }
    static var coalesced: MetricNameDescriptor {
        describe("apnsim_pushes_coalesced", "total",
                 "Stored pushes replaced by a newer one for the same app or channel before the device came back (APNs keeps one).")
    }
    static var unacknowledged: MetricNameDescriptor {
        describe("apnsim_pushes_unacknowledged", "",
                 "Pushes sent down a device link and not yet acknowledged.")
    }
    static var residentMemory: MetricNameDescriptor {
        describe("process_resident_memory", "bytes",
                 "Resident memory of the gateway's process.")
    }
    static var openDescriptors: MetricNameDescriptor {
        describe("process_open_fds", "",
                 "Open file descriptors of the gateway's process.")
    }

    /// A metric's name (its base and unit, joined by `_`) with its `# HELP` text.
    private static func describe(_ base: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: base, unitName: unit, helpText: help)
    }

    /// Latency buckets: a display takes milliseconds, a rich push's download seconds, a stored push minutes.
    static let latencyBuckets: [Duration] = [.milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
                                             .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
                                             .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30), .seconds(60)]

    /// The push types APNs knows: another value of the header is counted as `other`, so a label's values stay few.
    static let pushTypes: Set<String> = ["alert", "background", "voip", "complication", "fileprovider", "mdm", "location",
                                         "liveactivity", "pushtotalk", "widgets", "controls"]

    // MARK: - Counting

    /// A provider connection ended before it could carry a push (rare: counted as it happens).
    func connectionRefused(_ reason: String) {
        registry.makeCounter(descriptor: Self.refusedConnections, labels: [("reason", reason)]).increment()
    }

    /// A batch of send records: the provider's requests among them (not the faults and link events the record keeps
    /// beside them), one increment per label set.
    func count(_ batch: [SendRecord]) {
        var counts: [SendKey: Int64] = [:]
        for record in batch where !record.path.isEmpty {
            counts[SendKey(status: record.status, reason: record.reason, pushType: record.pushType, environment: record.environment,
                           auth: record.authMode), default: 0] += 1
        }
        for (key, count) in counts { sendCounters[key].increment(by: count) }
    }

    /// A batch of delivery events: outcomes, extension runs and, for a displayed push, its latency (the record's own,
    /// ``AppliedDeliveries/displayLatencies``).
    func count(_ batch: AppliedDeliveries) {
        var outcomes: [String: Int64] = [:]
        var runs: [RunKey: Int64] = [:]
        let latencies = batch.displayLatencies.map { Duration.seconds(max($0, 0)) }
        var runDurations: [Duration] = []
        var downloadDurations: [Duration] = []
        var downloads: [String: Int64] = [:]
        var downloadedBytes: Int64 = 0
        var stored: [StoredFor: Int64] = [:]
        var coalesced: Int64 = 0
        for event in batch.events {
            switch event {
            case .accepted(let record):
                // One the gateway completed itself (an app removed within its uninstall delay) has its outcome already.
                if let outcome = record.outcome { outcomes[outcome.rawValue, default: 0] += 1 }
            case .receipt(_, let outcome, _, _, _, let extensionRun, _, _):
                outcomes[outcome.rawValue, default: 0] += 1
                // A push iOS starts no extension for (no mutable-content) is no run.
                if let run = extensionRun.flatMap(ExtensionRun.Figures.ofRunThatRan) {
                    runs[RunKey(kind: run.kind ?? "", outcome: run.outcome), default: 0] += 1
                    runDurations.append(.milliseconds(run.durationMs))
                    for download in run.downloads {
                        downloads[download.status.map(String.init) ?? "none", default: 0] += 1
                        downloadedBytes += Int64(download.bytes)
                        downloadDurations.append(.milliseconds(download.durationMs))
                    }
                }
            case .stored(_, let reason, _, let replacing):
                stored[reason, default: 0] += 1
                if replacing != nil { coalesced += 1 }
            case .forgotten:
                outcomes["dropped", default: 0] += 1
            default:
                break
            }
        }
        for (outcome, count) in outcomes { outcomeCounters[outcome].increment(by: count) }
        for (status, count) in downloads { downloadCounters[status].increment(by: count) }
        for (reason, count) in stored { storedCounters[reason.rawValue].increment(by: count) }
        if coalesced > 0 { plainCounters[.coalesced].increment(by: coalesced) }
        if downloadedBytes > 0 { plainCounters[.mediaBytes].increment(by: downloadedBytes) }
        for (run, count) in runs { runCounters[run].increment(by: count) }
        for (timing, durations) in [(Timing.displayLatency, latencies), (.extensionDuration, runDurations), (.mediaDuration, downloadDurations)]
        where !durations.isEmpty {
            let histogram = histograms[timing]
            for duration in durations { histogram.record(duration) }
        }
    }

    // MARK: - The scrape

    /// What the gateway holds now, read at each scrape.
    struct Now {
        var connections: Int
        var devicesOnline: Int
        var stored: Int
        var unacknowledged: Int
    }

    /// The exposition in Prometheus's text format, version 0.0.4, with `now`'s gauges and the process's.
    func exposition(_ now: Now) -> [UInt8] {
        registry.makeGauge(descriptor: Self.connections).set(Double(now.connections))
        registry.makeGauge(descriptor: Self.devicesOnline).set(Double(now.devicesOnline))
        registry.makeGauge(descriptor: Self.stored).set(Double(now.stored))
        registry.makeGauge(descriptor: Self.unacknowledged).set(Double(now.unacknowledged))
        if let resident = ProcessFigures.residentBytes { registry.makeGauge(descriptor: Self.residentMemory).set(Double(resident)) }
        if let descriptors = ProcessFigures.openDescriptors { registry.makeGauge(descriptor: Self.openDescriptors).set(Double(descriptors)) }
        return registry.emitToBuffer()
    }
}

/// The process's own figures, where the system says (Linux's /proc); `nil` elsewhere.
enum ProcessFigures {
    static var residentBytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }

    static var openDescriptors: Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")).map { max(0, $0.count - 1) }  // less the listing's own
    }
}
