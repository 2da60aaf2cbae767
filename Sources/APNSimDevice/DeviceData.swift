import APNSimRules
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// What a device keeps across restarts (its apps' installation IDs and registered categories), and where: the one
/// owner of the device's files. A device alone keeps them in its data folder, `installations.json` and
/// `categories.json`, written as they change. The devices of a fleet (`apnsim device --count N --data FOLDER`) keep
/// theirs in one file for the process, `FOLDER/devices.json`, written at most every 5 seconds while they change and when
/// the fleet stops: 100,000 devices registering wrote 100,000 folders and files, most of the time they took.
public final class DeviceData: Sendable {
    /// One device's saved part.
    struct Saved: Sendable, Codable, Hashable {
        var installations = Installations()
        var categories = RegisteredCategories()
    }

    private enum Place {
        /// A device's own folder.
        case folder(URL)
        /// One file for the devices of a fleet.
        case fleet(URL)
    }

    private let place: Place?
    /// How long a fleet's change waits for others before the file is written: a process killed within it (SIGKILL; a
    /// stopping one writes at once) forgets the installations of that time, and those apps get new tokens.
    static let flushDelay = TimeAmount.seconds(5)
    private let fleet = NIOLockedValueBox<(devices: [String: Saved], dirty: Bool, flushScheduled: Bool)>(([:], false, false))

    /// A device's own data folder; `nil`: nothing is kept.
    public init(folder: String?) {
        place = folder.map { .folder(URL(fileURLWithPath: $0)) }
    }

    private init(fleetFile: URL) {
        place = .fleet(fleetFile)
        let saved = (try? Data(contentsOf: fleetFile)).flatMap { try? JSONDecoder().decode([String: Saved].self, from: $0) } ?? [:]
        fleet.withLockedValue { $0.devices = saved }
    }

    /// The data of a fleet's devices, in `folder/devices.json`.
    public static func fleet(in folder: String) -> DeviceData {
        DeviceData(fleetFile: URL(fileURLWithPath: folder).appendingPathComponent("devices.json"))
    }

    /// What device `id` saved before.
    func load(_ id: String) -> Saved {
        switch place {
        case nil:
            return Saved()
        case .folder(let folder):
            func read<Value: Decodable>(_ name: String) -> Value? {
                (try? Data(contentsOf: folder.appendingPathComponent(name))).flatMap { try? JSONDecoder().decode(Value.self, from: $0) }
            }
            return Saved(installations: read("installations.json") ?? Installations(), categories: read("categories.json") ?? RegisteredCategories())
        case .fleet:
            return fleet.withLockedValue { $0.devices[id] } ?? Saved()
        }
    }

    /// Keeps what device `id` has now.
    func save(_ id: String, _ saved: Saved) {
        switch place {
        case nil:
            return
        case .folder(let folder):
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try? JSONEncoder().encode(saved.installations).write(to: folder.appendingPathComponent("installations.json"), options: .atomic)
            try? JSONEncoder().encode(saved.categories).write(to: folder.appendingPathComponent("categories.json"), options: .atomic)
        case .fleet:
            let schedule = fleet.withLockedValue { fleet -> Bool in
                fleet.devices[id] = saved
                fleet.dirty = true
                defer { fleet.flushScheduled = true }
                return !fleet.flushScheduled
            }
            // Written a few seconds later with whatever else changed meanwhile, not once per device.
            if schedule { MultiThreadedEventLoopGroup.singleton.next().scheduleTask(in: Self.flushDelay) { self.flush() } }
        }
    }

    /// Writes a fleet's file now if anything changed since it was last written.
    public func flush() {
        guard case .fleet(let file) = place else { return }
        let devices = fleet.withLockedValue { fleet -> [String: Saved]? in
            fleet.flushScheduled = false
            guard fleet.dirty else { return nil }
            fleet.dirty = false
            return fleet.devices
        }
        guard let devices else { return }
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? Data(Self.json(devices)).write(to: file, options: .atomic)
    }

    /// The fleet's file, written by hand a device at a time: `JSONEncoder` held the whole document's tree for 100,000
    /// devices at once (about 170 MB more resident) and took a second of CPU for each write. The same JSON `Codable`
    /// reads back.
    static func json(_ devices: [String: Saved]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(devices.count * 120)
        for (index, (id, saved)) in devices.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            string(id, into: &out)
            out += Array(#":{"installations":{"#.utf8)
            for (number, (bundleID, installation)) in saved.installations.ids.enumerated() {
                if number > 0 { out.append(UInt8(ascii: ",")) }
                string(bundleID, into: &out)
                out.append(UInt8(ascii: ":"))
                string(installation, into: &out)
            }
            out += Array(#"},"categories":"#.utf8)
            out += saved.categories.isEmpty ? Array("{}".utf8) : (try? JSONEncoder().encode(saved.categories)).map { Array($0) } ?? Array("{}".utf8)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `text` as a JSON string.
    private static func string(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case ..<0x20: out += Array(String(format: "\\u%04x", byte).utf8)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
