import ArgumentParser
import Foundation
import Logging
import Synchronization

/// Log records as lines on standard output (or error): `text` for people, `json` for log collectors. Times are
/// RFC 3339 with milliseconds and the zone (`2026-11-26T11:18:07.123+01:00`, `Z` in UTC).
///
///     2026-11-26T11:18:07.123Z warning apnsim.device: device link failed; retrying device=iphone-1 in=0.1 seconds
///     {"label":"apnsim.device","level":"warning","message":"device link failed; retrying","metadata":{"device":"iphone-1","in":"0.1 seconds"},"source":"APNSimDevice","time":"2026-11-26T11:18:07.123Z"}
struct ConsoleLogHandler: LogHandler {
    enum Format: String, CaseIterable, ExpressibleByArgument, Sendable {
        case text, json
    }

    enum Stream: Sendable {
        case standardOutput, standardError
    }

    let label: String
    let format: Format
    let stream: Stream
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    /// Metadata every record gets from where it is written (the current span's trace ID, docs/tracing.md).
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, format: Format, stream: Stream, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.format = format
        self.stream = stream
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let (level, message, source) = (event.level, event.message, event.source)
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        all.merge(event.metadata ?? [:]) { $1 }
        if let error = event.error { all["error"] = "\(error)" }
        let time = Date().formatted(Self.timeStyle)
        let line: String
        switch format {
        case .text:
            let fields = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            line = ([time, level.rawValue, "\(label):", message.description] + fields).joined(separator: " ")
        case .json:
            var record: [String: Any] = ["time": time, "level": level.rawValue, "label": label, "message": message.description,
                                         "source": source]
            if !all.isEmpty { record["metadata"] = all.mapValues(Self.json) }
            line = Self.jsonLine(record)
        }
        Self.write(line, to: stream)
    }

    /// RFC 3339 with milliseconds, in the machine's zone.
    static let timeStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .current)

    /// One JSON object on one line, keys sorted.
    static func jsonLine(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return #"{"message":"a log record could not be written as JSON"}"#
        }
        return String(decoding: data, as: UTF8.self)
    }

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }

    /// Lines from every thread, whole: one write per line, under one lock.
    private static let output = Mutex(())

    static func write(_ line: String, to stream: Stream) {
        output.withLock { _ in
            let handle = stream == .standardOutput ? FileHandle.standardOutput : FileHandle.standardError
            try? handle.write(contentsOf: Data((line + "\n").utf8))
        }
    }
}
