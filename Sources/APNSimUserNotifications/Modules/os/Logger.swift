// apnsim's `os` module for extensions built on Linux (docs/own-extensions.md, "On Linux"): the unified-logging names an
// extension uses, `Logger`, `OSLog`, `os_log` and their levels and privacy, writing each message as one line on the
// extension process's standard output ("subsystem[category] level: message"), which apnsim's extension host sends to
// the device with the push it belongs to. Apple, "Logger",
// https://developer.apple.com/documentation/os/logger
//
// Where it differs from Apple's: values marked `.private` or `.sensitive` show as `<private>`; `.auto` values are
// shown (Apple hides dynamic strings unless a debugger is attached; a simulator's logs are for reading).
import Foundation

public struct OSLogType: Equatable, Hashable, Sendable, RawRepresentable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let `default` = OSLogType(0x00)
    public static let info = OSLogType(0x01)
    public static let debug = OSLogType(0x02)
    public static let error = OSLogType(0x10)
    public static let fault = OSLogType(0x11)

    var name: String {
        switch self {
        case .info: "info"
        case .debug: "debug"
        case .error: "error"
        case .fault: "fault"
        default: "notice"
        }
    }
}

public final class OSLog: @unchecked Sendable {  // immutable
    public let subsystem: String
    public let category: String

    public init(subsystem: String, category: String) {
        self.subsystem = subsystem
        self.category = category
    }

    public static let `default` = OSLog(subsystem: "", category: "")
    public static let disabled = OSLog(subsystem: "", category: "disabled")

    public func isEnabled(type: OSLogType) -> Bool { self !== OSLog.disabled }

    func write(_ type: OSLogType, _ message: String) {
        guard isEnabled(type: type) else { return }
        let line = "\(subsystem)[\(category)] \(type.name): \(message)\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }
}

public struct OSLogPrivacy: Equatable, Sendable {
    let hidden: Bool
    public static let `public` = OSLogPrivacy(hidden: false)
    public static let auto = OSLogPrivacy(hidden: false)
    public static let `private` = OSLogPrivacy(hidden: true)
    public static let sensitive = OSLogPrivacy(hidden: true)
    public static func `private`(mask: OSLogPrivacy.Mask) -> OSLogPrivacy { .private }
    public static func sensitive(mask: OSLogPrivacy.Mask) -> OSLogPrivacy { .sensitive }
    public static func auto(mask: OSLogPrivacy.Mask) -> OSLogPrivacy { .auto }

    public struct Mask: Equatable, Sendable {
        public static let hash = Mask()
        public static let none = Mask()
    }
}

public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral, Sendable {
    let text: String

    public init(stringLiteral value: String) { text = value }
    public init(stringInterpolation: StringInterpolation) { text = stringInterpolation.text }

    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        var text = ""
        public init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity) }
        public mutating func appendLiteral(_ literal: String) { text += literal }
        public mutating func appendInterpolation<T>(_ value: @autoclosure () -> T, privacy: OSLogPrivacy = .auto) {
            text += privacy.hidden ? "<private>" : String(describing: value())
        }
        public mutating func appendInterpolation<T>(_ value: @autoclosure () -> T, align: OSLogStringAlignment, privacy: OSLogPrivacy = .auto) {
            appendInterpolation(value(), privacy: privacy)
        }
    }
}

public struct OSLogStringAlignment: Sendable {
    public static let none = OSLogStringAlignment()
    public static func left(columns: Int) -> OSLogStringAlignment { .init() }
    public static func right(columns: Int) -> OSLogStringAlignment { .init() }
}

public struct Logger: @unchecked Sendable {  // immutable
    let log: OSLog

    public init() { log = .default }
    public init(subsystem: String, category: String) { log = OSLog(subsystem: subsystem, category: category) }
    public init(_ log: OSLog) { self.log = log }

    public func log(_ message: OSLogMessage) { log.write(.default, message.text) }
    public func log(level: OSLogType, _ message: OSLogMessage) { log.write(level, message.text) }
    public func trace(_ message: OSLogMessage) { log.write(.debug, message.text) }
    public func debug(_ message: OSLogMessage) { log.write(.debug, message.text) }
    public func info(_ message: OSLogMessage) { log.write(.info, message.text) }
    public func notice(_ message: OSLogMessage) { log.write(.default, message.text) }
    public func warning(_ message: OSLogMessage) { log.write(.error, message.text) }
    public func error(_ message: OSLogMessage) { log.write(.error, message.text) }
    public func critical(_ message: OSLogMessage) { log.write(.fault, message.text) }
    public func fault(_ message: OSLogMessage) { log.write(.fault, message.text) }
}

/// `os_log("Downloaded %{public}@ (%d bytes)", log: log, type: .info, name, count)`: the format's privacy
/// decorations (`{public}`, `{private}`) are dropped, then it is formatted as `String(format:)` would.
public func os_log(_ message: StaticString, dso: UnsafeRawPointer? = nil, log: OSLog = .default, type: OSLogType = .default, _ args: CVarArg...) {
    let format = "\(message)".replacingOccurrences(of: #"%\{[a-z, ]*\}"#, with: "%", options: .regularExpression)
    log.write(type, String(format: format, arguments: args))
}

/// The newer form: `os_log(.error, log: log, "Failed: \(reason)")`.
public func os_log(_ type: OSLogType, dso: UnsafeRawPointer? = nil, log: OSLog = .default, _ message: OSLogMessage) {
    log.write(type, message.text)
}
