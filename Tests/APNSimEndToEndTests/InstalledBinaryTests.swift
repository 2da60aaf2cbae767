import APNSimExtensions
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// An apnsim installed away from its checkout (a binary copied to a server or into an image) builds a team's Swift
/// extension from the UserNotifications mirror built into it.
@Suite("An installed apnsim", .endToEnd)
struct InstalledBinaryTests {
    @Test("A binary copied alone to another folder builds and runs a team's Swift extension", .hangGuard)
    func copiedBinaryBuildsExtensions() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-installed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let bin = folder.appendingPathComponent("bin")
        let temporary = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let installed = bin.appendingPathComponent("apnsim")
        try FileManager.default.copyItem(at: try ApnsimProcess.executable, to: installed)
        let payload = folder.appendingPathComponent("push.json")
        try Data(#"{"aps":{"alert":{"title":"Sale","body":"Pick one"},"mutable-content":1},"message_id":"m1","buttons":[{"id":"SHOP","title":"Shop"}]}"#.utf8)
            .write(to: payload)
        let source = repositoryRoot.appendingPathComponent("Scenarios/extensions/swift-categories/NotificationService.swift").path
        let (status, printed) = try await ChildProcess.run(["/bin/sh", "-c", "cd \"$1\" && exec \"$2\" extension run \"$3\" --payload \"$4\"", "sh",
                                                            folder.path, installed.path, source, payload.path],
                                                           environment: ["TMPDIR": temporary.path])
        #expect(status == .exited(0), "\(printed)")
        #expect(printed.contains("buttons     Shop"), "\(printed)")
        // The mirror it compiled came out of the binary, into the build cache of its own temporary folder.
        let cache = temporary.appendingPathComponent("apnsim-extension-builds")
        let mirrors = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasPrefix("mirror-") }
        #expect(mirrors.count == 1, "\(mirrors)")
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent(mirrors.first ?? "").appendingPathComponent(
            "Sources/APNSimUserNotifications/UNNotificationServiceExtension.swift").path))
    }

    @Test("A binary copied alone into an empty folder runs the sandbox: world, PKI, media and the inbox come out of it", .hangGuard)
    func copiedBinaryRunsSandbox() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-alone-\(UUID().uuidString)")
        let (folder, home) = (root.appendingPathComponent("empty"), root.appendingPathComponent("home"))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: try ApnsimProcess.executable, to: folder.appendingPathComponent("apnsim"))
        // Runs ./apnsim in the folder, as a user who copied it there would, with a home of its own and none of the
        // variables that point apnsim at files.
        let inFolder = ["/bin/sh", "-c", #"cd "$0" && shift && exec ./apnsim "$@""#, folder.path]
        let environment: [String: String?] = ["HOME": home.path, "APNSIM_HOME": nil, "XDG_DATA_HOME": nil, "APNSIM_CERTS": nil,
                                              "APNSIM_WORLD": nil, "APNSIM_DEVELOPMENT_MANAGEMENT_PORT": "0",
                                              "APNSIM_PRODUCTION_MANAGEMENT_PORT": "0"]
        let up = try await ApnsimProcess(["up", "--development-port", "0", "--production-port", "0", "--control-port", "0",
                                          "--device-port", "0", "--media-port", "0", "--stop-when-stdin-closes"] + GatewayProcess.hangGuardTimeouts,
                                         under: inFolder, environment: environment)
        let banner = try await up.waitForOutput("Ctrl-C stops everything.")
        let data = home.appendingPathComponent(".local/share/apnsim").path
        #expect(banner.contains("world                               \(data)/Scenarios/sandbox.yaml (built into apnsim)"), "\(banner)")
        #expect(banner.contains("PKI                                 \(data)/Certs (built into apnsim)"), "\(banner)")
        #expect(banner.contains("CA to trust                         \(data)/Certs/ca.pem"), "\(banner)")
        let provider = try #require(ProcessStopTests.port(after: "development (sandbox) provider API  https://127.0.0.1:", in: banner))
        let controlPort = try #require(ProcessStopTests.port(after: "inbox (open it in a browser)        http://127.0.0.1:", in: banner))

        // The development device's token once it registered (asked of the control API: no wait of the banner's decides it).
        let control = ControlClient(port: controlPort)
        let devices = try await control.devices { devices in DeviceProcessTests.token(devices, of: "iphone-dev") != nil }
        let token = try #require(DeviceProcessTests.token(devices, of: "iphone-dev"))
        // The wrapper drops the argument after the folder, where ApnsimProcess puts the executable's path.
        let (status, printed) = try await ChildProcess.run(inFolder + ["apnsim", "send", "--token", token, "--port", String(provider)],
                                                           environment: environment)
        #expect(status == .exited(0), "\(printed)")
        try #require(printed.contains("status: 200"), "\(printed)")
        let record = try await control.deliveries("token=\(token)").first
        #expect(record?["outcome"] as? String == "displayed", "\(String(describing: record))")

        for (path, mention) in [("/", "apnsim inbox"), ("/inbox/render.js", "function banner")] {
            let response = try await HTTPClient.forTests.execute(HTTPClientRequest(url: "http://127.0.0.1:\(controlPort)\(path)"),
                                                                 timeout: HangGuard.deadline)
            #expect(response.status == .ok, "\(path)")
            #expect(String(buffer: try await response.body.collect(upTo: 1 << 20)).contains(mention), "\(path)")
        }
        let (listed, certs) = try await ChildProcess.run(inFolder + ["apnsim", "certs"], environment: environment)
        #expect(listed == .exited(0) && certs.contains("  \(data)/Certs/ca.pem "), "apnsim certs names the PKI the banner named: \(certs)")
        let (_, pem) = try await ChildProcess.run(inFolder + ["apnsim", "certs", "--print", "ca.pem"], environment: environment)
        #expect(pem == (try String(contentsOfFile: "\(data)/Certs/ca.pem", encoding: .utf8)))
        await up.stop()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["apnsim"], "apnsim wrote nothing where it ran")
    }
}
