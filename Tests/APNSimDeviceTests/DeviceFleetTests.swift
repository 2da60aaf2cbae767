import APNSimDevice
import APNSimRules
import Foundation
import Testing

/// A device fleet as a file gives it: every key optional with the defaults written once in `DeviceFleet`, a key it
/// does not have refused by name, and what `apnsim device`'s flags make of it the same value.
@Suite("Device fleet")
struct DeviceFleetTests {
    static func decoded(_ json: String) throws -> DeviceFleet {
        try JSONDecoder().decode(DeviceFleet.self, from: Data(json.utf8))
    }

    @Test("An empty file is the defaults: one iPhone linking to a gateway on this machine with com.example.app")
    func defaults() throws {
        let fleet = try Self.decoded("{}")
        #expect(fleet == DeviceFleet())
        #expect(fleet.id == "iphone-1" && fleet.count == 1 && fleet.links == 4)
        #expect(fleet.model == DeviceDescriptor.defaultModel && fleet.os == DeviceDescriptor.defaultOS)
        #expect(fleet.gateways == [.init(host: "127.0.0.1", port: 5223)])
        #expect(fleet.apps == [.init(bundleID: "com.example.app", environment: .development)])
        #expect(fleet.activityBudget == ActivityBudget())
        #expect(fleet.problems().isEmpty)
    }

    @Test("What a fleet writes it reads back, every setting; null turns the Live Activity budget off")
    func roundTrip() throws {
        var fleet = DeviceFleet()
        fleet.id = "load"
        fleet.count = 500
        fleet.links = 2
        fleet.gateways = [.init(host: "gateway", port: 15223)]
        fleet.apps = [.init(bundleID: "com.example.app", environment: .production, alerts: false,
                            declared: World.App(bundleID: "com.example.app", team: "OTHERTEAM1", categories: [NotificationCategory(identifier: "OFFER")]))]
        fleet.data = "/tmp/fleet"
        fleet.extensionBudget = 5
        fleet.activityBudget = nil
        fleet.foreground = ["com.example.app": ["banner", "list"]]
        fleet.dropLinkBeforeAck = 2
        #expect(try JSONDecoder().decode(DeviceFleet.self, from: JSONEncoder().encode(fleet)) == fleet)
        #expect(try Self.decoded(#"{"activityBudget": null}"#).activityBudget == nil)
    }

    @Test("A key the fleet does not have is refused by name, with the keys it has", arguments: ["colour", "device", "gatewayHost"])
    func unknownKey(_ key: String) {
        #expect {
            try Self.decoded(#"{"\#(key)": 1}"#)
        } throws: { error in
            "\(error)".contains("\(key) is not a setting of a device fleet; they are id, name, count, links")
        }
    }

    @Test("What cannot run is said in one sentence each, and refused before any device starts", arguments: [
        (#"{"count": 0}"#, "count takes 1 to 250000; got 0"),
        (#"{"links": 65}"#, "links takes 0 (a link per device) to 64; got 65"),
        (#"{"gateways": []}"#, #"gateways names none; give one {"host", "port"}"#),
        (#"{"extensionBudget": 0}"#, "extensionBudget takes 0.1 to 600 seconds; got 0.0"),
        (#"{"foreground": {"com.example.app": ["loud"]}}"#, "foreground com.example.app: options are banner, list, sound, badge; got loud"),
    ])
    func problems(_ json: String, _ problem: String) throws {
        let fleet = try Self.decoded(json)
        #expect(fleet.problems() == [problem])
        #expect(throws: DeviceError.self) { try fleet.hosts(certs: "/nonexistent") }
    }
}

extension DeviceFleetTests {
    @Test("docs/devices.md's fleet file reads as a fleet with every key it shows set")
    func documentedFile() throws {
        let page = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/devices.md"), encoding: .utf8)
        let section = try #require(page.components(separatedBy: "## A fleet in a file").dropFirst().first)
        let json = try #require(section.components(separatedBy: "```json\n").dropFirst().first?.components(separatedBy: "```").first)
        let fleet = try Self.decoded(json)
        #expect(fleet.id == "load" && fleet.count == 1000 && fleet.apps.first?.declared?.categories?.first?.identifier == "OFFER")
        #expect(fleet.problems().isEmpty)
        let keys = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]).keys
        let written = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(DeviceFleet())) as? [String: Any]).keys
        #expect(Set(keys) == Set(written).union(["data", "certs"]), "the page shows every key a fleet has")
    }
}
