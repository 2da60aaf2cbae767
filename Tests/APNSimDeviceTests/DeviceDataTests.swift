@testable import APNSimDevice
import APNSimDeviceLink
import APNSimRules
import Foundation
import Testing

/// What a device keeps across restarts, and where: its own folder, or one file for its fleet.
@Suite("Device data")
struct DeviceDataTests {
    static func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-data-\(UUID().uuidString)").path
    }

    @Test("A new installation is saved once; linking again keeps it and saves nothing; an uninstall saves its loss")
    func saveWhenChanged() throws {
        var state = DeviceStateTests.state()
        let first = try state.handle(.welcome(.init(heartbeatInterval: 15)), now: DeviceStateTests.now)
        #expect(first.save)
        let again = try state.handle(.welcome(.init(heartbeatInterval: 15)), now: DeviceStateTests.now)
        #expect(!again.save)
        let removed = try state.handle(.uninstall(.init(bundleID: "com.example.app")), now: DeviceStateTests.now)
        #expect(removed.save && state.saved.installations.ids.isEmpty)
    }

    @Test("A device's own folder keeps its installations and categories as it did: installations.json and categories.json")
    func ownFolder() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var saved = DeviceData.Saved()
        let id = saved.installations.id(for: "com.example.app").id
        saved.categories.set([NotificationCategory(identifier: "ORDER", actions: [])], for: "com.example.app")
        DeviceData(folder: folder).save("d1", saved)
        let files = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: URL(fileURLWithPath: "\(folder)/installations.json")))
        #expect(files == ["com.example.app": id], "the same file a device wrote before")
        #expect(DeviceData(folder: folder).load("d1") == saved)
    }

    @Test("A fleet keeps every device's data in one file, written once for many changes and when it flushes")
    func fleetFile() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fleet = DeviceData.fleet(in: folder)
        var saved: [String: DeviceData.Saved] = [:]
        for index in 1...100 {
            var data = DeviceData.Saved()
            _ = data.installations.id(for: "com.example.app")
            if index == 7 { data.categories.set([NotificationCategory(identifier: "ORDER", actions: [])], for: "com.example.app") }
            saved["fan-\(index)"] = data
            fleet.save("fan-\(index)", data)
        }
        saved["a \"quoted\" id\n"] = DeviceData.Saved()
        fleet.save("a \"quoted\" id\n", DeviceData.Saved())
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/fan-1"), "no folder per device")
        fleet.flush()
        let reloaded = DeviceData.fleet(in: folder)
        for (id, data) in saved { #expect(reloaded.load(id) == data) }
        #expect(reloaded.load("stranger") == DeviceData.Saved())
    }
}
