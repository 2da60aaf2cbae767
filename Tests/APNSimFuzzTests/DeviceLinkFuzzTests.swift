import APNSimDevice
import APNSimDeviceLink
import APNSimRules
import Foundation
import Testing

/// Device-link bytes, mutated: whole frames with broken JSON, wrong types and hostile numbers, and raw bytes with
/// broken length prefixes. The reader must hand back messages or a sentence; a decoded push must go through a
/// device's notification list, and a decoded install through iOS's install check, without a trap.
extension Fuzz {
    @Suite("Fuzz: device-link messages")
    struct DeviceLinkFuzzTests {
        static let token = DeviceToken(FuzzFixtures.developmentToken)!

        /// What a gateway sends a device.
        static let toDevice: [DeviceLinkMessage.ToDevice] = [
            .welcome(.init(heartbeatInterval: 15)),
            .registered(.init(bundleID: "com.example.app", environment: .development, token: token)),
            .push(.init(id: "d-1", apnsID: "A-1", token: token, bundleID: "com.example.app", pushType: .alert, priority: 10,
                        collapseID: "c", payload: #"{"aps":{"alert":{"title":"T","body":"B"},"badge":2,"thread-id":"x"}}"#)),
            .push(.init(id: "d-2", apnsID: "A-2", token: token, bundleID: "com.example.app", pushType: .liveactivity, priority: 5,
                        collapseID: nil, payload: #"{"aps":{"event":"update","content-state":{"a":1},"timestamp":1800000000}}"#)),
            .push(.init(id: "d-3", apnsID: "A-3", token: token, bundleID: "com.example.app", pushType: .background, priority: 5,
                        collapseID: nil, payload: #"{"aps":{"content-available":1}}"#)),
            .install(.signed(bundleID: "com.example.app", team: "SIMTEAM001", environment: .development, now: FuzzFixtures.now)),
            .uninstall(.init(bundleID: "com.example.app")),
            .startActivity(.init(activity: FuzzFixtures.activity)),
            .endActivity(.init(id: "act-1", bundleID: "com.example.app", contentState: ["status": .string("delivered")], dismissalDate: FuzzFixtures.now, at: FuzzFixtures.now)),
            .push(.init(id: "d-6", apnsID: "A-6", token: FuzzFixtures.activityToken, bundleID: "com.example.app", pushType: .liveactivity,
                        priority: 10, collapseID: nil, payload: #"{"aps":{"event":"update","timestamp":1800000100,"stale-date":1800000200,"content-state":{"status":"nearby"}}}"#)),
            .push(.init(id: "d-5", apnsID: "A-5", token: FuzzFixtures.pushToStartToken, bundleID: "com.example.app", pushType: .liveactivity, priority: 10,
                        collapseID: nil, payload: #"{"aps":{"event":"start","timestamp":1800000000,"attributes-type":"DeliveryAttributes","attributes":{"orderID":"A"},"content-state":{"status":"packed"},"alert":"x"}}"#)),
            .heartbeat(.init(sequence: 7)),
        ]

        /// What a device sends a gateway.
        static let fromDevice: [DeviceLinkMessage.Written] = [
            .hello(.init(device: DeviceDescriptor(id: "iphone-1", name: "iPhone", model: "iPhone16,1", os: "iOS 18.1"))),
            .register(.init(bundleID: "com.example.app", environment: .development, installation: "i-1", team: "SIMTEAM001")),
            .unregister(.init(token: token)),
            .ack(.init(id: "d-1")),
            .ack(.init(id: "d-2", pending: true)),
            .receipt(.init(id: "d-1", outcome: .displayed, content: NotificationContent(title: "T", body: "B", badge: 2, threadID: "x"),
                           extensionRun: ExtensionRun(ran: false, kind: .braze, outcome: .notLaunched, diagnostic: "no mutable-content"),
                           badge: .init(bundleID: "com.example.app", count: 2),
                           presentation: Presentation(bundleID: "com.example.app", thread: "x", banner: true, list: true))),
            .receipt(.init(id: "d-3", outcome: .background, content: nil, detail: "woken")),
            .receipt(.init(id: "d-4", outcome: .liveactivity, content: nil, detail: "applied",
                           activity: FuzzFixtures.activity,
                           activityChange: ActivityChange(id: "act-1", event: .update, result: .applied,
                                                          before: ["status": .string("packed")], after: ["status": .string("on the way")]))),
            .heartbeat(.init(sequence: 8)),
        ]

        @Test("Seeded mutated frames: messages or a sentence, and what decodes is handled as a device would")
        func mutatedFrames() async {
            // Encoded with sorted keys: the encoder's own key order can differ from run to run, and the corpus must
            // not.
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let bodies = Self.toDevice.map { try! Array(encoder.encode($0)) } + Self.fromDevice.map { try! Array(encoder.encode($0)) }
            var mutator = Mutator(seed: 0x5EED_0003, corpus: bodies)
            var tally = FuzzTally(name: "DeviceLinkMessage")
            var list = NotificationList()
            list.setPushToStartTokens(["DeliveryAttributes": FuzzFixtures.pushToStartToken], for: "com.example.app")
            for iteration in 0..<fuzzIterations {
                if iteration % 1000 == 0 { await Task.yield() }  // let the other tests run
                let body = mutator.mutant()
                var bytes = frame(body)
                if mutator.chance(10) { bytes = mutator.mutate(bytes) }  // the length prefix too
                var reader = DeviceLinkFraming.Reader()
                reader.append(bytes)
                tally.tried += 1
                do {
                    var decoded = 0
                    while let message = try reader.next() {
                        decoded += 1
                        handle(message, list: &list, now: FuzzFixtures.now.addingTimeInterval(Double(iteration)))
                    }
                    if decoded > 0 { tally.accepted += 1 } else { tally.incomplete += 1 }
                } catch {
                    #expect(!error.description.isEmpty)
                    tally.rejected += 1
                }
                readAsGateway(bytes)
                if iteration % 1000 == 0 {
                    list = NotificationList()
                    list.setPushToStartTokens(["DeliveryAttributes": FuzzFixtures.pushToStartToken], for: "com.example.app")
                }
            }
            print(tally)
            #expect(tally.accepted > 0 && tally.rejected > 0)
            #expect(tally.accepted + tally.rejected + tally.incomplete == tally.tried, "every input has one outcome")
        }

        /// The gateway reads the same bytes its own way (acks and receipts by hand): messages or a sentence.
        private func readAsGateway(_ bytes: [UInt8]) {
            var reader = DeviceLinkFraming.Reader()
            reader.append(bytes)
            do {
                while let inbound = try reader.nextInbound() {
                    // What a receipt keeps as text is an object, as the record's reader expects.
                    guard case .receipt(let receipt) = inbound else { continue }
                    for text in [receipt.content?.text, receipt.extensionRun?.text, receipt.presentation?.text] {
                        #expect(text.map { JSONObjectSyntax.isObject(Array($0.utf8)) } ?? true, "\(text ?? "")")
                    }
                }
            } catch {
                #expect(!error.description.isEmpty)
            }
        }

        private func frame(_ body: [UInt8]) -> [UInt8] {
            let length = UInt32(body.count)
            return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + body
        }

        private func handle(_ message: DeviceLinkMessage.ToDevice, list: inout NotificationList, now: Date) {
            switch message {
            case .push(let delivery):
                for receipt in list.receive(delivery, now: now) { _ = DeviceLinkFraming.frame(DeviceLinkMessage.Written.receipt(receipt)) }
            case .install(let manifest):
                _ = InstallCheck.refusal(for: manifest, now: now)
            case .startActivity(let start):
                list.start(start.activity)
            case .endActivity(let end):
                list.end(end)
            default:
                _ = DeviceLinkFraming.frame(message)
            }
        }
    }
}
