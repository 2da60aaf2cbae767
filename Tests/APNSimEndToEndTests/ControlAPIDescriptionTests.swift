import APNSimDevice
@testable import APNSimGateway
import APNSimInbox
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Hummingbird
import Testing
import Yams

/// docs/control-api.openapi.yaml against the routes the control port serves: teams in other languages drive apnsim
/// from that description, so a route it lacks, or one it names that is gone, is a bug (`Interop/control_api_check.sh`
/// checks the answers against it with schemathesis).
@Suite("Control API description", .endToEnd)
struct ControlAPIDescriptionTests {
    /// `METHOD /path` of each documented operation, with its query parameters (`deprecated`: only those marked
    /// deprecated, the old spellings; else only the others).
    static func documented(deprecated: Bool = false) throws -> [String: Set<String>] {
        let text = try String(contentsOfFile: "docs/control-api.openapi.yaml", encoding: .utf8)
        let document = try #require(try Yams.load(yaml: text) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let shared = (document["components"] as? [String: Any])?["parameters"] as? [String: [String: Any]] ?? [:]
        var operations: [String: Set<String>] = [:]
        for (path, methods) in paths {
            for (method, operation) in methods {
                let parameters = ((operation as? [String: Any])?["parameters"] as? [[String: Any]] ?? []).compactMap { parameter -> String? in
                    let resolved = (parameter["$ref"] as? String).flatMap { shared[String($0.split(separator: "/").last ?? "")] } ?? parameter
                    guard resolved["in"] as? String == "query", (resolved["deprecated"] as? Bool ?? false) == deprecated else { return nil }
                    return resolved["name"] as? String
                }
                operations["\(method.uppercased()) \(path)"] = Set(parameters)
            }
        }
        return operations
    }

    @Test("Every route of the control API is documented, every documented operation is served, each with the query parameters it takes")
    func routesAreDocumented() async throws {
        let (gateway, _) = try makeTestGateway()
        let api = ControlAPI(actions: gateway.actions, store: gateway.store, providerPorts: [:], requests: gateway.requests,
                             uninstallDelay: .seconds(0), virtualClock: nil, stopping: gateway.stopping, additions: [try Inbox()])
        // The inbox's page and its files are the page, not the API.
        let served = Set(api.makeRouter(token: nil).routes.map { "\($0.method) \($0.path)" }).subtracting(["GET /", "GET /inbox/{file}"])
        let documented = try Self.documented()
        #expect(served.subtracting(documented.keys).sorted() == [], "served but not in docs/control-api.openapi.yaml")
        #expect(Set(documented.keys).subtracting(served).sorted() == [], "in docs/control-api.openapi.yaml but not served")
        for (operation, parameters) in documented {
            #expect(parameters == Set(ControlQuery.parameters[operation] ?? []), "\(operation): documented \(parameters.sorted())")
        }
        for (operation, parameters) in try Self.documented(deprecated: true) {
            #expect(parameters == Set((OldSpellings.queryNames[operation] ?? [:]).keys), "\(operation): documented as deprecated \(parameters.sorted())")
        }
    }

    @Test("GET /v1/openapi.json is docs/control-api.openapi.yaml as JSON, and it and the records' schema need no control token")
    func served() async throws {
        try await withGateway({ $0.controlHost = "0.0.0.0"; $0.controlToken = "s3cret" }) { harness in
            let control = harness.control
            let description = try await control.get("/v1/openapi.json")
            #expect(description.status == 200)
            let served = try #require(description.json as? [String: Any])
            #expect(served["openapi"] as? String == "3.1.0")
            let paths = try #require(served["paths"] as? [String: Any])
            #expect(Set(paths.keys) == Set(try Self.documented().keys.map { String($0.split(separator: " ")[1]) }))
            let schema = try await control.get("/v1/records.schema.json")
            #expect(schema.status == 200)
            #expect((schema.json as? [String: Any])?["$defs"] != nil)
        }
    }

    @Test("A method a path does not take is 405 naming the ones it does, in Allow too; an unknown path is still 404")
    func methodNotAllowed() async throws {
        try await withGateway { harness in
            let control = harness.control
            let deleted = try await control.delete("/v1/devices")
            #expect(deleted.status == 405)
            #expect((deleted.json as? [String: Any])?["error"] as? String == "DELETE is not a method of /v1/devices; it takes GET")
            let faults = try await control.post("/v1/faults/f1", "{}")
            #expect(faults.status == 405)
            #expect((faults.json as? [String: Any])?["error"] as? String == "POST is not a method of /v1/faults/f1; it takes DELETE")
            #expect(try await control.get("/v1/nothing-here").status == 404)
        }
    }

    @Test("An install with no bundle ID, a team left empty or a profile that is no object is a 400 naming it, and nothing reaches the device",
          arguments: [
            (#"{"bundleID":"","team":"SIMTEAM001"}"#, #"bundleID "" is not a bundle ID (letters, digits, hyphens and periods)"#),
            (#"{"bundleID":"com.example app","team":"SIMTEAM001"}"#, #"bundleID "com.example app" is not a bundle ID (letters, digits, hyphens and periods)"#),
            (#"{"bundleID":"com.example.other","team":""}"#, "team is empty; give the team ID the app is signed with"),
            (#"{"bundleID":"com.example.other","team":"SIMTEAM001","profile":[1]}"#, "wrong type at .profile"),
          ])
    func badInstall(_ body: String, _ error: String) async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let answer = try await harness.control.post("/v1/devices/device-1/apps", body)
                #expect(answer.status == 400)
                let sentence = try #require((answer.json as? [String: Any])?["error"] as? String)
                #expect(sentence.hasPrefix(error) || sentence.contains(error), "\(sentence)")
                #expect(device.tokens.count == 1, "nothing was installed")
            }
        }
    }

    @Test("background refuses presentation options it does not know, as foreground does")
    func backgroundOptions() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { _ in
                let answer = try await harness.control
                    .post("/v1/devices/device-1/background", #"{"bundleID":"com.example.app","options":["banner","loud"]}"#)
                #expect(answer.status == 400)
                #expect((answer.json as? [String: Any])?["error"] as? String == "options are banner, list, sound and badge; got loud")
            }
        }
    }
}
