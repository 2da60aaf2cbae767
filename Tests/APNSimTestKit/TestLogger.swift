import Foundation
import Logging
import Synchronization

/// The logger of every gateway, device and media server a test runs: errors only by default, so a green run prints
/// nothing alarming (many tests expect refusals, which the product logs as warnings with the compiler's "error:" lines
/// in them). `APNSIM_TEST_LOG_LEVEL=notice swift test` shows why each connection closed, for chasing a rare failure.
package func testLogger(_ label: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = ProcessInfo.processInfo.environment["APNSIM_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .error
    return logger
}

/// A log handler that keeps every record it is given, with what its metadata provider added, for a test to read.
package struct RecordingLogHandler: LogHandler {
    package struct Record: Sendable {
        package var message: String
        package var metadata: Logger.Metadata
    }

    package final class Records: Sendable {
        private let kept = Mutex<[Record]>([])
        package var all: [Record] { kept.withLock { $0 } }
        package func add(_ record: Record) { kept.withLock { $0.append(record) } }
        package init() {}
    }

    package let records: Records
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    package var logLevel: Logger.Level = .trace

    package init(records: Records, metadataProvider: Logger.MetadataProvider? = nil) {
        self.records = records
        self.metadataProvider = metadataProvider
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let given = event.metadata { all.merge(given) { $1 } }
        records.add(Record(message: "\(event.message)", metadata: all))
    }
}
