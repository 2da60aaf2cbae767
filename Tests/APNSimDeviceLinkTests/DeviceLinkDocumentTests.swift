@testable import APNSimDeviceLink
import Foundation
import Testing

/// docs/device-link.md's table of messages held to the definitions: each message of each direction is a row whose
/// "from" says that direction, each row is a message, and every member a message is written with is named in its row.
@Suite("Device link: docs/device-link.md against the messages")
struct DeviceLinkDocumentTests {
    /// One row of the table: its types (`heartbeat` / `heartbeatAck` is one row), who sends them, and every name its
    /// fields column writes in backquotes (nested ones too).
    struct Row {
        var types: [String]
        var from: String
        var names: Set<String>
    }

    static let rows: [Row] = {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/device-link.md")
        let text = (try? String(contentsOf: page, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line -> Row? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5, cells[1].hasPrefix("`") else { return nil }
            return Row(types: quoted(cells[1]), from: cells[2], names: Set(quoted(cells[3])))
        }
    }()

    /// The names in backquotes in `text`.
    static func quoted(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().compactMap { $0.offset % 2 == 1 ? String($0.element) : nil }
    }

    static func row(of type: String) -> Row? { rows.first { $0.types.contains(type) } }

    /// The members of `message`'s JSON object beside `type`.
    static func members(_ message: some Encodable) throws -> Set<String> {
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(message)) as? [String: Any] ?? [:]
        return Set(object.keys).subtracting(["type"])
    }

    @Test("Each message to a device has a row from the gateway (or either), naming every member it is written with")
    func toDevice() throws {
        #expect(!Self.rows.isEmpty, "the table was read")
        for message in DeviceLinkTests.toDevice {
            let row = try #require(Self.row(of: message.type), "docs/device-link.md has no row for \(message.type)")
            #expect(["gateway", "either"].contains(row.from), "\(message.type) is sent by the gateway; the page says \(row.from)")
            let undocumented = try Self.members(message).subtracting(row.names)
            #expect(undocumented.isEmpty, "\(message.type)'s \(undocumented.sorted()) are not in its row: \(row.names.sorted())")
        }
    }

    @Test("Each message from a device has a row from the device (or either), naming every member it is written with")
    func fromDevice() throws {
        for message in DeviceLinkTests.fromDevice {
            let row = try #require(Self.row(of: message.type), "docs/device-link.md has no row for \(message.type)")
            #expect(["device", "device process", "either"].contains(row.from), "\(message.type) is sent by a device; the page says \(row.from)")
            let undocumented = try Self.members(message).subtracting(row.names)
            #expect(undocumented.isEmpty, "\(message.type)'s \(undocumented.sorted()) are not in its row: \(row.names.sorted())")
        }
    }

    @Test("Each row of the table is a message of the direction it names")
    func everyRowIsAMessage() {
        let toDevice = Set(DeviceLinkTests.toDevice.map(\.type))
        let fromDevice = Set(DeviceLinkTests.fromDevice.map(\.type))
        for row in Self.rows {
            for type in row.types {
                switch row.from {
                case "gateway": #expect(toDevice.contains(type), "the page's \(type) is no message the gateway sends")
                case "device", "device process": #expect(fromDevice.contains(type), "the page's \(type) is no message a device sends")
                default: #expect(toDevice.contains(type) && fromDevice.contains(type), "the page's \(type) does not go both ways")
                }
            }
        }
    }
}
