import APNSimRules
import APNSimScenario
import APNSimStore
import Foundation
import Testing

/// A recorded session is a scenario apnsim replay loads: devices' tokens become device and app, the media
/// server's URL becomes ${media}, and what changes from run to run is left out.
@Suite("Session recordings")
struct SessionRecordingTests {
    @Test("A recording names devices, writes ${media}, keeps the outcome and loads as a scenario")
    func recordingLoads() throws {
        let token = String(repeating: "ab", count: 32)
        let payload = #"{"aps":{"alert":{"title":"Sale","body":"50% off"},"mutable-content":1},"ab":{"att":{"url":"http://127.0.0.1:8199/media/sample.jpg","type":"jpg"}}}"#
        let accepted = SendRecord(receivedAt: Date(), environment: "development", authMode: "token", method: "POST",
                                  path: "/3/device/\(token)", token: token, topic: "com.example.app", pushType: "alert",
                                  apnsID: "A-1", headers: ["apns-topic": "com.example.app", "apns-push-type": "alert"],
                                  payload: payload, payloadBytes: payload.utf8.count, status: 200, reason: nil, explanation: nil,
                                  durationMicros: 900)
        var refused = accepted
        refused.apnsID = "A-2"
        refused.status = 400
        refused.reason = "BadTopic"
        let goAway = SendRecord.faultEvent(Fault(kind: .goAway, reason: "Shutdown"), event: "GOAWAY", at: Date(), explanation: "x")
        var delivery = DeliveryRecord(id: "d1", apnsID: "A-1", device: "iphone-dev", bundleID: "com.example.app", token: token,
                                      pushType: "alert", acceptedAt: Date())
        delivery.outcome = .displayed
        delivery.content = NotificationContent(title: "Sale", body: "50% off")

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("recording-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("session.yaml").path
        let recording = SessionRecording(worldFile: repositoryRoot.appendingPathComponent("Scenarios/sandbox.yaml").path,
                                         mediaURL: "http://127.0.0.1:8199/media", owners: [token: ("iphone-dev", "com.example.app")])
        let yaml = recording.scenario(sends: [accepted, refused, goAway], deliveries: [delivery], path: path, recordedAt: Date())
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)

        #expect(yaml.contains(#""url":"${media}/sample.jpg""#))
        #expect(!yaml.contains(token), "the device's token is written as device and app")
        let loaded = try ScenarioLoader.load(path: path)
        #expect(loaded.scenario.steps.count == 2, "the GOAWAY record is not a provider request")
        #expect(loaded.scenario.steps[0].send?.device == "iphone-dev")
        #expect(loaded.scenario.steps[1].expect?.reason == "BadTopic")
        #expect(loaded.scenario.steps[0].expect?.delivery?["outcome"] == .string("displayed"))
    }
}
