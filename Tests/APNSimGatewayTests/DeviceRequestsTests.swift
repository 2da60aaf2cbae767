@testable import APNSimGateway
import APNSimDeviceLink
import APNSimRules
import APNSimTestSupport
import Foundation
import NIOCore
import NIOEmbedded
import Testing

/// Control requests waiting for a device's answer are one kind: an install, an interaction, a summary and an activity's
/// end asked on a session all end with it, in one event, and each is answered by the device's own reply.
@Suite("Device requests: one kind, ended with their session")
struct DeviceRequestsTests {
    static func session(_ id: String) -> (DeviceSession, NIOAsyncTestingChannel) {
        let channel = NIOAsyncTestingChannel()
        return (DeviceSession(descriptor: DeviceDescriptor(id: id, name: id), channel: channel), channel)
    }

    static let app = AppManifest.signed(bundleID: "com.example.app", team: TestWorld.team, environment: .development, now: Date())

    /// Asks an install, an interaction, a summary and an activity's end of `session`'s device, each waiting as long as the hang guard.
    static func askAll(_ requests: DeviceRequests, on session: DeviceSession) -> [Task<DeviceRequests.Outcome, Never>] {
        let device = session.descriptor.id
        return [
            Task { await requests.ask(.install(app), awaiting: .install(device: device, bundleID: app.bundleID), on: session, timeout: HangGuard.limit) },
            Task { await requests.ask(.interact(.init(id: "\(device)-tap", apnsID: "A-1", action: "tap", at: Date())),
                                      awaiting: .reply(id: "\(device)-tap"), on: session, timeout: HangGuard.limit) },
            Task { await requests.ask(.deliverSummary(.init(id: "\(device)-summary")), awaiting: .reply(id: "\(device)-summary"),
                                      on: session, timeout: HangGuard.limit) },
            Task { await requests.ask(.endActivity(.init(id: "\(device)-activity", bundleID: app.bundleID, contentState: nil, dismissalDate: nil, at: Date())),
                                      awaiting: .activities(device: device), on: session, timeout: HangGuard.limit) },
        ]
    }

    /// Waits until `count` messages have gone out on `channel`: a request waits from before its message is sent.
    static func waitForMessages(_ count: Int, on channel: NIOAsyncTestingChannel) async throws {
        var reader = DeviceLinkFraming.Reader(), seen = 0
        while seen < count {
            reader.append(try await channel.waitForOutboundWrite(as: ByteBuffer.self).readableBytesView)
            while try reader.next() != nil { seen += 1 }
        }
    }

    @Test("A session's end answers every kind of request waiting on it, and none waiting on another session")
    func sessionEnd() async throws {
        let requests = DeviceRequests()
        let (ending, endingLink) = Self.session("d1"), (staying, stayingLink) = Self.session("d2")
        let ended = Self.askAll(requests, on: ending)
        let kept = Self.askAll(requests, on: staying)
        try await Self.waitForMessages(4, on: endingLink)
        try await Self.waitForMessages(4, on: stayingLink)

        requests.sessionEnded(ending)
        for task in ended {
            guard case .sessionEnded = await task.value else { Issue.record("not ended with its session: \(await task.value)"); continue }
        }
        // The other session's requests still wait: the device answers each of its own.
        #expect(requests.resolve(.install(device: "d2", bundleID: "com.example.app"), with: .installed(DeviceToken(String(repeating: "ab", count: 32))!)))
        #expect(requests.resolve(.reply(id: "d2-tap"), with: .interacted(.init(id: "d2-tap", refusal: "nothing shown"))))
        #expect(requests.resolve(.reply(id: "d2-summary"),
                                 with: .summarized(SummaryDelivery(id: "d2-summary", device: "d2", scheduledFor: nil, at: Date(), notifications: [], detail: ""))))
        #expect(requests.resolve(.activities(device: "d2"), with: .activities(.init(bundleID: Self.app.bundleID, activities: []))))
        var answered: [String] = []
        for task in kept {
            switch await task.value {
            case .answered(.installed): answered.append("installed")
            case .answered(.interacted): answered.append("interacted")
            case .answered(.summarized): answered.append("summarized")
            case .answered(.activities): answered.append("activities")
            case let other: Issue.record("not answered: \(other)")
            }
        }
        #expect(answered == ["installed", "interacted", "summarized", "activities"])
        #expect(!requests.resolve(.reply(id: "d2-tap"), with: .interacted(.init(id: "d2-tap"))), "answered once; a second answer finds no one")
    }
}
