import APNSimGateway
import APNSimRules
import APNSimScenario
import APNSimStore
import Foundation

/// `--record FILE.yaml` of `apnsim up` and `apnsim gateway`: once the session ends, what providers sent and what
/// the devices displayed, written as a scenario `apnsim replay` runs.
enum SessionRecorder {
    static func write(_ gateway: Gateway, worldFile: String, mediaURL: String?, to path: String) async throws {
        try await gateway.recorder.flush()
        try await gateway.deliveries.flush()
        var owners: [String: (device: String, app: String)] = [:]
        for device in gateway.deviceStatus {
            for registration in device.tokens { owners[registration.token.hex] = (device.descriptor.id, registration.bundleID) }
        }
        let sends = try await gateway.store.sends(matching: SendFilter(limit: Int.max)).reversed()
        let deliveries = try await gateway.store.deliveries(matching: DeliveryFilter(limit: Int.max))
        let recording = SessionRecording(worldFile: URL(fileURLWithPath: worldFile).standardizedFileURL.path,
                                         mediaURL: mediaURL.map { "\($0)/media" }, owners: owners)
        let text = recording.scenario(sends: Array(sends), deliveries: deliveries, path: path, recordedAt: Date())
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw RecordingError("cannot write the recording to \(path): \(error.localizedDescription)")
        }
        let steps = sends.filter { $0.method == "POST" && $0.status != 0 }.count
        Console.say("apnsim: recorded \(steps) push\(steps == 1 ? "" : "es") as a scenario in \(path) (apnsim replay \(path))")
    }
}

struct RecordingError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
