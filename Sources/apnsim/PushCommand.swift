import APNSimRules
import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `apnsim push DEVICE [BUNDLE] FILE.apns`: the `xcrun simctl push` of apnsim. Looks the device's token up in
/// the control API and sends the file through the gateway as a provider would, so the push takes the whole
/// send-to-display path.
struct PushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Send a .apns payload file to an app on a simulated device, as `xcrun simctl push` does.",
        discussion: """
        Like simctl, the bundle ID may be left out when the file has a top-level "Simulator Target Bundle" key
        (which is removed before sending), and DEVICE may be "booted" for the first online device.
        """
    )

    @Argument(help: "Device ID (as in GET /v1/devices), or booted.")
    var device: String

    @Argument(help: "The app's bundle ID, then the .apns file; or just the file.")
    var rest: [String]

    @Option(name: .customLong("control-url"), help: "The gateway's control API.")
    var controlURL = "http://127.0.0.1:8197"

    @OptionGroup var provider: ProviderOptions

    func validate() throws {
        guard (1...2).contains(rest.count) else { throw ValidationError("give BUNDLE FILE, or FILE with a \"Simulator Target Bundle\" key") }
    }

    func run() async throws {
        let file = rest.last!
        let apns = try SimctlPayload(text: try readFile(file, what: "the payload file"), file: file)
        guard let bundleID = rest.count == 2 ? rest[0] : apns.targetBundle else {
            throw ValidationError("name the app: give BUNDLE before the file, or a \"Simulator Target Bundle\" key in it")
        }
        let (token, environment) = try await lookUp(bundleID: bundleID)
        try ProviderOptions.report(try await provider.send(token: token, payload: apns.payload, headers: apns.headers(bundleID: bundleID),
                                                           environment: environment))
    }

    private struct DeviceView: Decodable {
        struct App: Decodable { var bundleID: String; var environment: APNsEnvironment; var token: String }
        var id: String
        var online: Bool
        var apps: [App]
    }

    /// The token and environment of `bundleID` on the named device.
    private func lookUp(bundleID: String) async throws -> (String, APNsEnvironment) {
        guard let url = URL(string: controlURL + "/v1/devices") else { throw ValidationError("bad --control-url \(controlURL)") }
        let devices: [DeviceView]
        do {
            let (data, _) = try await URLSession.shared.data(from: url)
            devices = try JSONDecoder().decode([DeviceView].self, from: data)
        } catch {
            throw ValidationError("cannot read devices from \(url): \(error.localizedDescription); is apnsim up running?")
        }
        let chosen = device == "booted" ? devices.first { $0.online } : devices.first { $0.id == device }
        guard let chosen else {
            throw ValidationError("no device \(device); known: \(devices.map(\.id).joined(separator: ", "))")
        }
        guard let app = chosen.apps.first(where: { $0.bundleID == bundleID }) else {
            throw ValidationError("\(bundleID) is not installed on \(chosen.id); installed: \(chosen.apps.map(\.bundleID).joined(separator: ", "))")
        }
        return (app.token, app.environment)
    }
}
